import torch.func
import torch.func as ft
import torch
from functorch import make_functional
from torch.func import grad, vmap


def per_sample_grads(model, loss_fn, params, xs):
    fmodel, weights = make_functional(model)  # expect
    batched = vmap(grad(loss_fn))(params, xs)  # expect
    jac = torch.func.jacrev(loss_fn)(params)  # expect
    hess = ft.hessian(loss_fn)(params)  # expect
    out, tangent = torch.func.jvp(torch.sin, (xs,), (xs,))  # expect
    return fmodel, weights, batched, jac, hess, out, tangent
