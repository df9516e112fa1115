import torch


def gp_solve(K: torch.Tensor, y: torch.Tensor, A: torch.Tensor):
    L = torch.cholesky(K, upper=False)  # expect
    alpha = torch.cholesky_solve(y, L, upper=False)  # expect
    x, lu = torch.solve(y, A)  # expect
    z, _ = torch.triangular_solve(y, L, upper=False)  # expect
    fac = A.lu()  # expect
    return L, alpha, x, z, fac
