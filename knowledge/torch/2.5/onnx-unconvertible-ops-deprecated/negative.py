import torch


def check(model, args):
    torch.onnx.export(model, args, "m.onnx")
