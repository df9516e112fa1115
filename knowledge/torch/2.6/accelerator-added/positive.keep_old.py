import torch


def pick_device():
    if torch.cuda.is_available():  # expect
        return torch.accelerator.current_accelerator()  # expect
    return torch.device("cpu")
