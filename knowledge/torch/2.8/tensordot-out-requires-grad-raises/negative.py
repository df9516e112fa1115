import numpy as np
import torch


def contract(a: torch.Tensor, b: torch.Tensor, out: np.ndarray):
    c = torch.tensordot(a, b, dims=1)
    d = np.tensordot(out, out, axes=1)
    return c, d
