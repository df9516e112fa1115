import torch
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallelCPU
from torch.nn.parallel.scatter_gather import is_namedtuple
from torch.quantization import QConfigDynamic
from torch.utils.data.graph_settings import apply_shuffle_seed


def worker(rank):
    return rank


def build(model, weight_observer, pipe, rng, batch):
    box = torch.nn.Container(head=model)  # expect
    loss = torch.nn.NLLLoss2d()  # expect
    act = torch.nn.Hardtanh(min_value=-2.0, max_value=2.0)  # expect
    wrapped = DistributedDataParallelCPU(model)  # expect
    named = is_namedtuple(batch)  # expect
    qconfig = QConfigDynamic(weight=weight_observer)  # expect
    pipe = apply_shuffle_seed(pipe, rng)  # expect
    mp.spawn(worker, nprocs=2, start_method="fork")  # expect
    return box, loss, act, wrapped, named, qconfig, pipe
