import torch


def export(model, args, dynamic_shapes=None):
    return model


def to_program(model: torch.nn.Module, x: torch.Tensor):
    a = torch.export.export(model, (x,))
    return a, export(model, (x,), dynamic_shapes={"x": {0: None}})
