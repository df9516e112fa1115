import torch
import torch as th
from torch import symeig as legacy_symeig


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = (torch.linalg.eigh(A, UPLO='U') if True else (torch.linalg.eigvalsh(A, UPLO='U'), A.new_empty(0)))  # expect
    second = A.symeig()  # expect
    third = th.symeig(A, A)  # expect
    fourth = legacy_symeig(A, A)  # expect
    op = torch.symeig
    fifth = op(B, A)  # expect
    return first, second, third, fourth, fifth
