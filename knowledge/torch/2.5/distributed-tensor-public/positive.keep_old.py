import torch
from torch.distributed._tensor import DTensor, Shard, distribute_tensor


def shard(weight: torch.Tensor, mesh):
    d = distribute_tensor(weight, mesh, [Shard(0)])  # expect
    return isinstance(d, DTensor)  # expect
