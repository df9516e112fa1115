import torch
from torch.export import export_for_training


def export(model, args):
    first = torch.export.export_for_training(model, args)  # expect
    return first, export_for_training(model, args)  # expect
