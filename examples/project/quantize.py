"""Build the byte lookup table used by the int8 export."""

import torch


def lookup_table() -> torch.Tensor:
    # byte values stored as int8: 200 and 255 wrapped to -56 and -1 up to 1.12
    table = torch.tensor([0, 64, 127, 200, 255], dtype=torch.int8)
    sentinel = torch.tensor(300, dtype=torch.int8)
    return torch.cat([table, sentinel.view(1)])


def phase_shift(signal: torch.Tensor, angle: float) -> torch.Tensor:
    rotation = torch.tensor(complex(0.0, angle), dtype=torch.cdouble)
    return signal * rotation.exp()
