import torch
import torch as th
from torch import cholesky as legacy_cholesky


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = torch.linalg.cholesky(A, upper=True)  # expect
    second = A.cholesky()  # expect
    third = th.cholesky(A, A)  # expect
    fourth = legacy_cholesky(A, A)  # expect
    op = torch.cholesky
    fifth = op(B, A)  # expect
    return first, second, third, fourth, fifth
