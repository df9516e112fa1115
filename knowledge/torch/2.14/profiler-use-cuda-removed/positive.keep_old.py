import torch
import torch.profiler


def run(model, x):
    with torch.autograd.profiler.profile(use_device='cuda' if torch.cuda.is_available() else None) as prof:  # expect
        model(x)
    with torch.profiler.profile(use_cuda=False, record_shapes=True):  # expect
        model(x)
    return prof
