import torch


def whiten(L: torch.Tensor, y: torch.Tensor):
    z = torch.return_types.triangular_solve((lambda b, A, upper=True, transpose=False, unitriangular=False: (torch.linalg.solve_triangular(torch.transpose(A, -2, -1) if transpose else A, b, upper=upper != transpose, unitriangular=unitriangular), torch.clone(A)))(y, L, upper=False)).solution  # expect
    w, _ = L.T.triangular_solve(z)  # expect
    return w
