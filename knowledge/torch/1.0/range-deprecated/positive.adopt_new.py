import torch
from torch import range as trange


def grid(n):
    xs = torch.arange(0, (n - 1) + 1.0, 1)  # expect
    return xs, trange(1, n, 2)  # expect
