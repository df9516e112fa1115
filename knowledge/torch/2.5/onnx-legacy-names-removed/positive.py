import torch
from torch.onnx import ONNXProgramSerializer
from torch.onnx.errors import CheckerError


def export(model, x, path):
    try:
        torch.onnx.export(model, (x,), path)
    except torch.onnx.CheckerError:  # expect
        pass
    except CheckerError:  # expect
        pass
    return torch.onnx.SymbolicContext, ONNXProgramSerializer  # expect
