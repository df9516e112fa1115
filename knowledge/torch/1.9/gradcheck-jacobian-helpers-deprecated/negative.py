import torch


def jacobians(fn, x):
    ok = torch.autograd.gradcheck(fn, (x,))
    return ok, torch.autograd.functional.jacobian(fn, x)
