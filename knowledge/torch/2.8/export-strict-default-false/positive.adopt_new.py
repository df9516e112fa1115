import torch
from torch.export import export


def capture(model: torch.nn.Module, x: torch.Tensor):
    a = torch.export.export(model, (x,), strict=False)  # expect
    b = export(model, (x,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}}, strict=False)  # expect
    return a, b
