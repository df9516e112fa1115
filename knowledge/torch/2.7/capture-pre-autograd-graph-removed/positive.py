import torch
from torch._export import capture_pre_autograd_graph


def prepare(model: torch.nn.Module, x: torch.Tensor):
    m = capture_pre_autograd_graph(model, (x,))  # expect
    n = torch._export.capture_pre_autograd_graph(model, (x,))  # expect
    return m, n
