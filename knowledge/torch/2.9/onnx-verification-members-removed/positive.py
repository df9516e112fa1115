import torch
from torch.onnx import verification
from torch.onnx.verification import VerificationOptions, find_mismatch


def check(model: torch.nn.Module, x: torch.Tensor):
    verification.verify(model, (x,))  # expect
    options = VerificationOptions(check_shape=True)  # expect
    info = find_mismatch(model, (x,), options=options)  # expect
    torch.onnx.verification.check_export_model_diff(model, [(x,)])  # expect
    return info
