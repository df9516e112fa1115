import torch


def dynamo_export(model, x):
    return model


def to_onnx(model: torch.nn.Module, x: torch.Tensor):
    program = torch.onnx.export(model, (x,), dynamo=True)
    return program, dynamo_export(model, x)
