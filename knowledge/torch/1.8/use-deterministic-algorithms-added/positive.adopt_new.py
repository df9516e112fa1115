import torch


def seed_everything(seed: int, legacy: bool):
    torch.manual_seed(seed)
    if legacy:
        torch.use_deterministic_algorithms(True)  # expect
    else:
        torch.use_deterministic_algorithms(True)  # expect
