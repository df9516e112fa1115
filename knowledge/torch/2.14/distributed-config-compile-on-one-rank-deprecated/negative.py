import torch
import torch.compiler.config


def compile_once(model):
    with torch.compiler.config.patch(compile_on_one_rank=True):
        return torch.compile(model)


def one_rank():
    return torch.compiler.config.compile_on_one_rank
