import torch


def offsets(x: torch.Tensor):
    return x.new_tensor([0, 2], device=x.device), x.new_zeros(2)
