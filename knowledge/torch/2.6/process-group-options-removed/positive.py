import torch.distributed as dist
from torch.distributed import ProcessGroup


def build(store, rank: int, size: int):
    options = ProcessGroup.Options(backend="gloo")
    a = ProcessGroup(store, rank, size, options)  # expect
    b = dist.ProcessGroup(store, rank, size, options=options)  # expect
    return a, b
