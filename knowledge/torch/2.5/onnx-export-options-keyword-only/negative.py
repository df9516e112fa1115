import torch


def export(model, args, path):
    torch.onnx.export(model, args, path, export_params=True, verbose=False)
