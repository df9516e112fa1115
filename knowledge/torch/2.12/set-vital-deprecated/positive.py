import torch
from torch import set_vital


def record():
    torch.set_vital("Dataloader", "enabled", "True")  # expect
    set_vital("CUDA", "used", "False")  # expect
