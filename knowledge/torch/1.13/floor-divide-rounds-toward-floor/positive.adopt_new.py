import torch
import torch as th
from torch import floor_divide as fdiv


def bucket(positions: torch.Tensor, size: int):
    a = torch.div(positions, size, rounding_mode='floor')  # expect
    b = torch.div(positions, 2, rounding_mode='floor')  # expect
    c = torch.div(positions, 3, rounding_mode='floor')  # expect
    d = positions.div(4, rounding_mode='floor')  # expect
    positions.div_(2, rounding_mode='floor')  # expect
    e = torch.div(positions, size, rounding_mode='floor')  # expect
    f = torch.div(10, positions, rounding_mode='floor')  # expect
    positions.div_(2, rounding_mode='floor')  # expect
    op = torch.floor_divide
    g = torch.div(positions, 2, rounding_mode='floor')  # expect
    h = list(map(torch.floor_divide, [positions], [2]))  # expect
    i = torch.div(positions, 2, rounding_mode='floor')  # expect
    t = torch.arange(-5, 5)
    j = [torch.div(x, 2, rounding_mode='floor') for x in [t]]  # expect
    k = (lambda v: torch.div(v, 2, rounding_mode='floor'))(t)  # expect
    return a, b, c, d, e, f, g, h, i, j, k
