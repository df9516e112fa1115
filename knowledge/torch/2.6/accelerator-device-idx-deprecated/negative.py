import torch


def pick(i):
    torch.accelerator.set_device_index(i)
    return torch.accelerator.current_device_index()
