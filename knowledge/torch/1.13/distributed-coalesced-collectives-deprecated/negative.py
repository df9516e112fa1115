import torch
import torch.distributed as dist


def sync(grads, out):
    flat = torch.cat([g.flatten() for g in grads])
    dist.all_reduce(flat)
    dist.all_gather_into_tensor(out, flat)
