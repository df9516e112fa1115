import torch


def export(model, args):
    return torch.export.export_for_inference(model, args)  # expect
