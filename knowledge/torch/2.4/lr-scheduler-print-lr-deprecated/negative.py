import torch
from torch.optim.lr_scheduler import StepLR


class Logger:
    def print_lr(self, *args):
        print(*args)


def train(opt: torch.optim.Optimizer):
    scheduler = StepLR(opt, step_size=1)
    scheduler.step()
    Logger().print_lr(scheduler.get_last_lr())
    return scheduler
