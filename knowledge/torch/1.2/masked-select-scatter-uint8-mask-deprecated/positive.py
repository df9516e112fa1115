import torch


def gather(x: torch.Tensor, keep: torch.Tensor, values: torch.Tensor):
    a = torch.masked_select(x, keep.byte())  # expect
    b = x.masked_select(keep.to(torch.uint8))  # expect
    flags = torch.tensor([1, 0, 1], dtype=torch.uint8)
    c = x.masked_scatter(flags, values)  # expect
    x.masked_scatter_(mask=keep.long(), source=values)  # expect
    return a, b, c
