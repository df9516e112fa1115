import torch
import torch as th
from torch import eig as legacy_eig


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = (torch.view_as_real(torch.linalg.eigvals(A, eigenvectors=True)), A.new_empty(0))  # expect
    second = A.eig()  # expect
    third = th.eig(A, A)  # expect
    fourth = legacy_eig(A, A)  # expect
    op = torch.eig
    fifth = op(B, A)  # expect
    return first, second, third, fourth, fifth
