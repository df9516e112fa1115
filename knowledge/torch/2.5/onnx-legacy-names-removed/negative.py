import torch
from torch.onnx.errors import OnnxExporterError


class CheckerError(Exception):
    pass


def export(model, x, path):
    try:
        torch.onnx.export(model, (x,), path)
    except OnnxExporterError:
        pass
    except CheckerError:
        pass
    return torch.onnx.OnnxExporterError
