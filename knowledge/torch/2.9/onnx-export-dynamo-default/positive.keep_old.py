import torch
from torch import onnx
from torch.onnx import export as onnx_export


def to_onnx(model: torch.nn.Module, x: torch.Tensor, path: str):
    torch.onnx.export(model, (x,), path, dynamo=False)  # expect
    onnx.export(model, (x,), path, opset_version=17, input_names=["x"], dynamo=False)  # expect
    onnx_export(model, (x,), path, dynamic_axes={"x": {0: "batch"}}, dynamo=False)  # expect
