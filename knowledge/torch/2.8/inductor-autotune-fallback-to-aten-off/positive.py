import torch


def build(model: torch.nn.Module, mode: str):
    fast = torch.compile(model, mode="max-autotune")  # expect
    quiet = torch.compile(model, mode="max-autotune-no-cudagraphs")  # expect
    chosen = torch.compile(model, mode=mode)  # expect
    return fast, quiet, chosen
