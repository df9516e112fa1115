import torch
import torch as th
from torch import eig as legacy_eig


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = torch.eig(A, eigenvectors=True)  # expect
    second = (torch.view_as_real(torch.linalg.eigvals(A)), A.new_empty(0))  # expect
    third = (torch.view_as_real(torch.linalg.eigvals(A)), A.new_empty(0))  # expect
    fourth = (torch.view_as_real(torch.linalg.eigvals(A)), A.new_empty(0))  # expect
    op = torch.eig
    fifth = op(B, A)  # expect
    return first, second, third, fourth, fifth
