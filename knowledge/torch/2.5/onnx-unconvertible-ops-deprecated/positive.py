import torch.onnx.utils
from torch.onnx.utils import unconvertible_ops


def check(model, args):
    graph, ops = torch.onnx.utils.unconvertible_ops(model, args)  # expect
    _, more = unconvertible_ops(model, args, opset_version=17)  # expect
    return ops + more
