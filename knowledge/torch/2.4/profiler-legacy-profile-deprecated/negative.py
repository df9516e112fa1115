import torch
from torch.profiler import ProfilerActivity, profile


def measure(model, x):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        model(x)
    with torch.autograd.profiler.profile(record_shapes=True):
        model(x)
    return prof
