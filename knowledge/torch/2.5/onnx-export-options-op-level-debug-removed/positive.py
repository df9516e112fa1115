import torch
from torch.onnx import ExportOptions


def options():
    a = torch.onnx.ExportOptions(dynamic_shapes=True, op_level_debug=True)  # expect
    b = ExportOptions(op_level_debug=False)  # expect
    return a, b
