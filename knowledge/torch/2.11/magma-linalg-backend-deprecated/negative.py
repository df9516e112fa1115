import torch


def use_cusolver():
    torch.backends.cuda.preferred_linalg_library("cusolver")
    return torch.backends.cuda.preferred_linalg_library()


def use_default():
    torch.backends.cuda.preferred_linalg_library("default")
