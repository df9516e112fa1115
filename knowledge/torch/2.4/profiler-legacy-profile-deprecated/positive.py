import torch
from torch.autograd.profiler_legacy import profile


def measure(model, x):
    with profile() as prof:  # expect
        model(x)
    with torch.autograd.profiler_legacy.profile(record_shapes=True):  # expect
        model(x)
    return prof
