import torch.onnx.symbolic_helper
from torch.onnx import symbolic_opset9


def setup():
    return symbolic_opset9, torch.onnx.symbolic_helper, "torch.onnx.symbolic_caffe2"
