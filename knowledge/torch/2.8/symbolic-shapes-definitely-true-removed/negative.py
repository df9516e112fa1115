import torch
from torch.fx.experimental.symbolic_shapes import guard_or_false, guard_or_true


def definitely_true(flag):
    return bool(flag)


def is_broadcast(x: torch.Tensor) -> bool:
    if guard_or_false(x.shape[0] == 1):
        return True
    return not guard_or_true(x.shape[0] > 1) or definitely_true(x.dim() == 0)
