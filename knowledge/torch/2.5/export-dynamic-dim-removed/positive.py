import torch


def export(f, x):
    return torch.export.export(f, (x,), constraints=[torch.export.dynamic_dim(x, 0)])  # expect
