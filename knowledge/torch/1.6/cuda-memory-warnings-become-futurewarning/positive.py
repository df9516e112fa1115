import torch
from torch import cuda


def report():
    used = torch.cuda.memory_cached()  # expect
    peak = cuda.max_memory_cached()  # expect
    torch.cuda.reset_max_memory_allocated()  # expect
    cuda.reset_max_memory_cached()  # expect
    return used, peak
