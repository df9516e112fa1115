import torch
import torch as th
from torch import chain_matmul as legacy_chain_matmul


def analyse(A: torch.Tensor, B: torch.Tensor):
    first = torch.linalg.multi_dot([A, B, A])  # expect
    second = torch.linalg.multi_dot([B, A, B])  # expect
    third = torch.linalg.multi_dot([A, A])  # expect
    fourth = torch.linalg.multi_dot([A, A])  # expect
    op = torch.chain_matmul
    fifth = torch.linalg.multi_dot([B, A])  # expect
    return first, second, third, fourth, fifth
