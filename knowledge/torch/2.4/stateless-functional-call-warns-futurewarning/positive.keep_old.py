import torch
from torch.nn.utils import stateless
from torch.nn.utils.stateless import functional_call as call_with


def ensemble_forward(model: torch.nn.Module, params: dict, x: torch.Tensor):
    a = torch.func.functional_call(model, params, (x,))  # expect
    b = torch.func.functional_call(model, params, x)  # expect
    c = torch.func.functional_call(model, params, (x,))  # expect
    return a, b, c
