import torch


def export(model, args):
    return torch.export.export(model, args)
