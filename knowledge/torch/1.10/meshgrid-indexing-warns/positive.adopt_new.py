import torch
from torch import meshgrid


def grid(h: int, w: int):
    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij')  # expect
    a, b = meshgrid([torch.arange(h), torch.arange(w)], indexing='ij')  # expect
    return ys, xs, a, b
