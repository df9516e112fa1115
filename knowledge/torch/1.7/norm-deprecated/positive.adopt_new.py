import torch
from torch import norm


def grad_norm(params):
    total = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in params]), 2)  # expect
    return total / torch.linalg.vector_norm(params[0], ord="fro")  # expect
