import torch


def whiten(x: torch.Tensor):
    u, s, v = torch.return_types.svd((lambda U, S, Vh: (U, S, torch.adjoint(Vh)))(*torch.linalg.svd(x - x.mean(0), full_matrices=False)))  # expect
    _, s2, _ = x.svd(some=False)  # expect
    return u @ torch.diag(1.0 / s) @ v.T, s2
