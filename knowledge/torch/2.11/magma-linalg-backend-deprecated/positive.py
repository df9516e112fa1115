import torch


def use_magma():
    torch.backends.cuda.preferred_linalg_library("magma")  # expect
    torch.backends.cuda.preferred_linalg_library(backend="magma")  # expect
