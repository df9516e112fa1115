import torch
import torch.distributed.nn
from torch.distributed.nn.functional import all_reduce


def gather(local):
    feats = torch.distributed.nn.all_gather(local)  # expect
    total = all_reduce(local)  # expect
    return feats, total
