import torch
from torch.autograd.gradcheck import get_analytical_jacobian, get_numerical_jacobian


def jacobians(fn, x):
    out = fn(x)
    numeric = get_numerical_jacobian(fn, (x,), eps=1e-6)  # expect
    analytic = torch.autograd.gradcheck.get_analytical_jacobian((x,), out)  # expect
    return numeric, analytic
