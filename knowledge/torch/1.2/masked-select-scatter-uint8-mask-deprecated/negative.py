import torch


def gather(x: torch.Tensor, keep: torch.Tensor, values: torch.Tensor):
    a = torch.masked_select(x, keep.bool())
    b = x.masked_select(x > 0)  # a comparison is a bool mask
    flags = torch.ones(3, dtype=torch.bool)
    c = x.masked_scatter(flags, values)
    text = "x.masked_select(keep.byte())"
    d = torch.where(keep.bool(), x, values)
    return a, b, c, text, d
