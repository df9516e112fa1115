import torch
import torch as th
from torch import solve as legacy_solve


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = (torch.linalg.solve(A, B), torch.linalg.lu_factor(A).LU)  # expect
    second = (torch.linalg.solve(A, B), torch.linalg.lu_factor(A).LU)  # expect
    third = th.solve(A)  # expect
    fourth = legacy_solve(A)  # expect
    op = torch.solve
    fifth = (torch.linalg.solve(A, B), torch.linalg.lu_factor(A).LU)  # expect
    return first, second, third, fourth, fifth
