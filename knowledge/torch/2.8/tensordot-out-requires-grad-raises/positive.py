import torch
from torch import tensordot


def contract(a: torch.Tensor, b: torch.Tensor, buffer: torch.Tensor):
    torch.tensordot(a, b, dims=1, out=buffer)  # expect
    tensordot(a, b, dims=([1], [0]), out=buffer)  # expect
    return buffer
