import torch
from torch.autograd import profiler


def read(path):
    events = torch.autograd.profiler.load_nvprof(path)  # expect
    raw = profiler.parse_nvprof_trace(path)  # expect
    unique = profiler.EnforceUnique()  # expect
    return events, raw, unique
