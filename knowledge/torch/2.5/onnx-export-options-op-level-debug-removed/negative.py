import torch


class ExportOptions:
    def __init__(self, op_level_debug=False):
        self.op_level_debug = op_level_debug


def options():
    return torch.onnx.ExportOptions(dynamic_shapes=True), ExportOptions(op_level_debug=True)
