import torch


def export(model, args, table):
    print(sorted(table))
    return torch.onnx.export(model, args, dynamo=True)
