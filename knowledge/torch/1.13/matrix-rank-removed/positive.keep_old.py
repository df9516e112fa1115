import torch
import torch as th
from torch import matrix_rank as legacy_matrix_rank


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = torch.matrix_rank(A, symmetric=True)  # expect
    second = torch.linalg.matrix_rank(A)  # expect
    third = torch.linalg.matrix_rank(A)  # expect
    fourth = torch.linalg.matrix_rank(A)  # expect
    op = torch.matrix_rank
    fifth = op(B, A)  # expect
    return first, second, third, fourth, fifth
