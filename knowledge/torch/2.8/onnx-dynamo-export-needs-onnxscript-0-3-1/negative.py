import torch


def export(model, x, path):
    torch.onnx.export(model, (x,), path, dynamo=False)
