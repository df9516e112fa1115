import torch
from torch.cuda import GreenContext


def run_in(ctx, work):
    torch.cuda.GreenContext.set_context(ctx)  # expect
    work()
    GreenContext.pop_context(ctx)  # expect
