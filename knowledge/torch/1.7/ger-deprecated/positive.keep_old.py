import torch


def outer(u: torch.Tensor, v: torch.Tensor):
    a = torch.outer(u, v)  # expect
    return a + u.ger(v)  # expect
