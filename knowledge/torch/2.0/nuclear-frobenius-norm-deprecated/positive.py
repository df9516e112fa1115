import torch
from torch import nuclear_norm


def norms(a: torch.Tensor):
    n = torch.nuclear_norm(a)  # expect
    f = torch.frobenius_norm(a, (0, 1))  # expect
    m = nuclear_norm(a, keepdim=True)  # expect
    return n, f, m
