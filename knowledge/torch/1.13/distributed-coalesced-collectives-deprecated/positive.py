import torch.distributed as dist
from torch.distributed import all_gather_coalesced


def sync(grads, outputs):
    dist.all_reduce_coalesced(grads)  # expect
    all_gather_coalesced(outputs, grads)  # expect
