import torch
from torch.export import export


def to_program(model: torch.nn.Module, x: torch.Tensor):
    a = torch.export.export(model, (x,), dynamic_shapes={"x": {0: None}})  # expect
    b = export(model, (x,), dynamic_shapes=({1: None},))  # expect
    return a, b
