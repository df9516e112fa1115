import torch


def run_in(ctx, work):
    with torch.cuda.stream(ctx.Stream()):
        work()
