import torch
from torch.onnx.verification import verify_onnx_program


def verify(model, x):
    return model(x)


def check(model: torch.nn.Module, x: torch.Tensor):
    program = torch.onnx.export(model, (x,), dynamo=True)
    results = verify_onnx_program(program)
    return results, verify(model, x)
