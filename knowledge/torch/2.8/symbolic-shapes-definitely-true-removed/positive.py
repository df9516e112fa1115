import torch
from torch.fx.experimental import symbolic_shapes
from torch.fx.experimental.symbolic_shapes import definitely_true


def is_broadcast(x: torch.Tensor) -> bool:
    if definitely_true(x.shape[0] == 1):  # expect
        return True
    return symbolic_shapes.definitely_false(x.shape[0] > 1)  # expect
