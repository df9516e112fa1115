import torch
from torch.cuda import max_memory_cached


def report():
    cached = torch.cuda.memory_reserved() / 1e9  # expect
    peak = torch.cuda.max_memory_reserved()  # expect
    return cached, peak
