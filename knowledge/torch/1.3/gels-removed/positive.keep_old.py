import torch


def fit(A: torch.Tensor, B: torch.Tensor):
    X, qr = torch.lstsq(B, A)  # expect
    Y, _ = B.lstsq(A)  # expect
    return X, Y
