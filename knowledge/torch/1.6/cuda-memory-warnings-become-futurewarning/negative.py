import torch


def report():
    used = torch.cuda.memory_reserved()
    peak = torch.cuda.max_memory_reserved()
    torch.cuda.reset_peak_memory_stats()
    return used, peak
