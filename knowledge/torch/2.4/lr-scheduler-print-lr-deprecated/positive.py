import torch
from torch.optim.lr_scheduler import StepLR


def train(opt: torch.optim.Optimizer):
    scheduler = StepLR(opt, step_size=1)
    scheduler.step()
    scheduler.print_lr(True, 0, scheduler.get_last_lr()[0])  # expect
    return scheduler
