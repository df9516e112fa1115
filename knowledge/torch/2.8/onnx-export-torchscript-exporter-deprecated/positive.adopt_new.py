import torch
from torch.onnx import export as onnx_export


def to_onnx(model: torch.nn.Module, x: torch.Tensor, path: str):
    torch.onnx.export(model, (x,), path, dynamo=True)  # expect
    torch.onnx.export(model, (x,), path, opset_version=17)  # expect
    onnx_export(model, (x,), path, dynamo=False, input_names=["x"])  # expect
