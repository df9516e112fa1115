import torch
import torch.distributed.nn
from torch.distributed.nn import all_to_all_single


def exchange(t, parts, out):
    a = torch.distributed.nn.broadcast(t, 0)  # expect
    b = torch.distributed.nn.reduce_scatter(out, parts)  # expect
    c = all_to_all_single(out, t)  # expect
    return a, b, c
