import torch
from torch.autograd.gradcheck import vmap


def batched(fn, xs):
    a = vmap(fn)(xs)  # expect
    b = torch._vmap_internals.vmap(fn)(xs)  # expect
    return a, b
