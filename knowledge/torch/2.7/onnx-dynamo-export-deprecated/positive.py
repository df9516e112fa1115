import torch
from torch.onnx import dynamo_export


def to_onnx(model: torch.nn.Module, x: torch.Tensor):
    program = torch.onnx.dynamo_export(model, x)  # expect
    again = dynamo_export(model, x)  # expect
    return program, again
