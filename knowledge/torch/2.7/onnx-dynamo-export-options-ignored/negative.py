import torch


def to_onnx(model: torch.nn.Module, x: torch.Tensor):
    return torch.onnx.dynamo_export(model, x), torch.onnx.export(model, (x,), dynamo=True)
