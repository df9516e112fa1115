import torch


def export(model, args, path):
    torch.onnx.export(model, args, path, dynamo=True, fallback=True)  # expect
