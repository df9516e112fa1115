import torch
import torch.multiprocessing as mp
from torch.ao.quantization import QConfig
from torch.utils.data.graph_settings import apply_random_seed


def worker(rank):
    return rank


def build(model, act_observer, weight_observer, pipe, rng):
    loss = torch.nn.NLLLoss()
    act = torch.nn.Hardtanh(min_val=-2.0, max_val=2.0)
    plain = torch.nn.Hardtanh()
    wrapped = torch.nn.parallel.DistributedDataParallel(model)
    qconfig = QConfig(activation=act_observer, weight=weight_observer)
    pipe = apply_random_seed(pipe, rng)
    mp.spawn(worker, nprocs=2)
    mp.spawn(worker, nprocs=2, start_method="spawn")
    mp.start_processes(worker, nprocs=2, start_method="fork")
    return loss, act, plain, wrapped, qconfig, pipe
