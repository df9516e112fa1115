import torch


def factor(A: torch.Tensor):
    LU, pivots = torch.linalg.lu_factor(A)  # expect
    LU2, pivots2, info = A.lu(get_infos=True)  # expect
    return LU, pivots, LU2, pivots2, info
