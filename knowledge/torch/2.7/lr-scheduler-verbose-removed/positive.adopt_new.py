import torch
from torch.optim import lr_scheduler
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR


def schedulers(opt: torch.optim.Optimizer):
    a = StepLR(opt, step_size=30, gamma=0.1, verbose=True)  # expect
    b = ReduceLROnPlateau(opt, "min", patience=3)  # expect
    c = lr_scheduler.CosineAnnealingLR(opt, T_max=100, verbose=True)  # expect
    d = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10, verbose=True)  # expect
    return a, b, c, d
