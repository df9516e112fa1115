import torch


def restore(path: str):
    state = torch.load(path, weights_only=True)  # expect
    lazy = torch.load(path, map_location="cpu")  # expect
    return state, lazy
