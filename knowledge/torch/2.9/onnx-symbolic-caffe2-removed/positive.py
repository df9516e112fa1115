import torch.onnx.symbolic_caffe2  # expect
from torch.onnx import symbolic_caffe2  # expect
from torch.onnx.symbolic_caffe2 import register_quantized_ops  # expect


def setup():
    register_quantized_ops("caffe2", 9)
    return symbolic_caffe2
