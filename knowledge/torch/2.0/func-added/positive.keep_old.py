import functorch
import torch
from torch.func import functional_call
from functorch import vmap


def per_sample(model: torch.nn.Module, params: dict, xs: torch.Tensor):
    out = vmap(lambda x: functional_call(model, params, (x,)))(xs)  # expect
    jac = functorch.jacrev(torch.sin)(xs)  # expect
    return out, jac
