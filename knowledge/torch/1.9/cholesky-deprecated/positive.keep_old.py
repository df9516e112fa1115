import torch
import torch as th
from torch import cholesky as legacy_cholesky


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = torch.linalg.cholesky(A, upper=True)  # expect
    second = A.cholesky()  # expect
    third = torch.linalg.cholesky(A, A)  # expect
    fourth = torch.linalg.cholesky(A, A)  # expect
    op = torch.cholesky
    fifth = torch.linalg.cholesky(B, A)  # expect
    return first, second, third, fourth, fifth
