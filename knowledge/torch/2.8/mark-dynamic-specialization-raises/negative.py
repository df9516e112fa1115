import torch


def compile_step(fn, batch):
    torch._dynamo.maybe_mark_dynamic(batch, 0)
    torch._dynamo.mark_static(batch, 1)
    return torch.compile(fn, dynamic=True)(batch)
