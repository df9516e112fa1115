import torch


def norms(a: torch.Tensor):
    n = torch.linalg.matrix_norm(a, "nuc")
    f = torch.linalg.matrix_norm(a)
    g = torch.norm(a, p="nuc")
    text = "torch.nuclear_norm(a)"
    return n, f, g, text
