import torch
from torch import lu_solve


def solve(A: torch.Tensor, B: torch.Tensor):
    LU, pivots = torch.linalg.lu_factor(A)
    X = torch.linalg.lu_solve(LU, pivots, B)  # expect
    Y = B.lu_solve(LU, pivots)  # expect
    Z = torch.linalg.lu_solve(LU, pivots, B)  # expect
    return X, Y, Z
