import torch
import torch.distributed.config


def compile_once(model):
    with torch.distributed.config.patch(compile_on_one_rank=True):  # expect
        return torch.compile(model)


def one_rank():
    return torch.distributed.config.compile_on_one_rank  # expect
