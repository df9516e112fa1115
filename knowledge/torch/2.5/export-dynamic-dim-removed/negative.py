import torch


def export(f, x):
    return torch.export.export(f, (x,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
