import torch
import torch.distributed as dist


def exchange(t, parts, out):
    dist.broadcast(t, 0)
    dist.reduce_scatter(out, parts)
    dist.all_to_all_single(out, t)
    return t
