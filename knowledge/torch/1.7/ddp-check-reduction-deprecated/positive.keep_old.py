import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def wrap(model, rank):
    model = DDP(model, device_ids=[rank])  # expect
    return torch.nn.parallel.DistributedDataParallel(model)  # expect
