import torch


def mask_scores(scores: torch.Tensor, pad: torch.Tensor, attention):
    a = scores.masked_fill(pad.byte().bool(), float("-inf"))  # expect
    b = torch.masked_fill(scores, pad, 0.0)  # expect
    causal = torch.tril(torch.ones(4, 4, dtype=torch.uint8))
    c = attention.masked_fill(causal, -1e4)  # expect
    d = torch.masked_fill(scores, mask=causal, value=0.0)  # expect
    return a, b, c, d
