import torch
import torch as th
from torch import solve as legacy_solve


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = (torch.linalg.solve(A, B), torch.linalg.lu_factor(A).LU)  # expect
    second = B.solve(A)  # expect
    third = (torch.linalg.solve(A, A), torch.linalg.lu_factor(A).LU)  # expect
    fourth = (torch.linalg.solve(A, A), torch.linalg.lu_factor(A).LU)  # expect
    op = torch.solve
    fifth = (torch.linalg.solve(A, B), torch.linalg.lu_factor(A).LU)  # expect
    return first, second, third, fourth, fifth
