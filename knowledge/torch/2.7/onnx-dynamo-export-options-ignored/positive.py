import torch


def to_onnx(model: torch.nn.Module, x: torch.Tensor, registry):
    options = torch.onnx.ExportOptions(onnx_registry=registry)
    return torch.onnx.dynamo_export(model, x, export_options=options)  # expect
