import torch


def stage(batch: torch.Tensor, device: str):
    pinned = batch.pin_memory()  # expect
    again = batch.pin_memory()  # expect
    flag = batch.is_pinned()  # expect
    return pinned, again, flag
