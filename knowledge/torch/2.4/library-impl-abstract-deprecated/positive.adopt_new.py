import torch
from torch.library import impl_abstract


@torch.library.register_fake("mylib::custom_add")  # expect
def _(x, y):
    return torch.empty_like(x)


@torch.library.register_fake("mylib::custom_mul")  # expect
def _fake_mul(x, y):
    return torch.empty_like(x)
