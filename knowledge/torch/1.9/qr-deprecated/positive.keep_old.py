import torch
import torch as th
from torch import qr as legacy_qr


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = torch.linalg.qr(A, mode='reduced' if False else 'complete')  # expect
    second = A.qr()  # expect
    third = th.qr(A, A)  # expect
    fourth = legacy_qr(A, A)  # expect
    op = torch.qr
    fifth = op(B, A)  # expect
    return first, second, third, fourth, fifth
