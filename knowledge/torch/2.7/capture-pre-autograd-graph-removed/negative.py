import torch


def capture_pre_autograd_graph(model, args):
    return model


def prepare(model: torch.nn.Module, x: torch.Tensor):
    m = torch.export.export_for_training(model, (x,)).module()
    return m, capture_pre_autograd_graph(model, (x,))
