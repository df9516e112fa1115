import torch
from torch.autograd import profiler


def run(model, x, use_gpu):
    with torch.autograd.profiler.profile(use_device='cuda' if True else None) as prof:  # expect
        model(x)
    with profiler.profile(record_shapes=True, use_device='cuda' if use_gpu else None):  # expect
        model(x)
    return prof
