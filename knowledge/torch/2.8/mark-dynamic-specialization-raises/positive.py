import torch
from torch._dynamo import mark_dynamic


def compile_step(fn, batch):
    torch._dynamo.mark_dynamic(batch, 0)  # expect
    mark_dynamic(batch, 1)  # expect
    return torch.compile(fn)(batch)
