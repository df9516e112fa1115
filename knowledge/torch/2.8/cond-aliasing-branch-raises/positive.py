import torch


def pick(x: torch.Tensor) -> torch.Tensor:
    return torch.cond(x.sum() > 0, lambda t: t, lambda t: t * 2, (x,))  # expect


compiled = torch.compile(pick)
