import torch


def mask_scores(scores: torch.Tensor, pad: torch.Tensor, lengths):
    a = scores.masked_fill(pad.byte().bool(), float("-inf"))  # expect
    b = torch.masked_fill(scores, pad, 0.0)  # expect
    keep = torch.tensor([1, 0, 1], dtype=torch.uint8)
    c = scores.masked_fill(keep.bool(), 0.0)  # expect
    positions = torch.arange(scores.size(-1))
    d = scores.masked_fill(mask=(positions < lengths).long(), value=0.0)  # expect
    return a, b, c, d
