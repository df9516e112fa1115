import torch
from torch import accelerator


def pick(i):
    torch.accelerator.set_device_idx(i)  # expect
    return accelerator.current_device_idx()  # expect
