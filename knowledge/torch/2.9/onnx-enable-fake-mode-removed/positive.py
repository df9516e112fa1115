import torch
from torch.onnx import enable_fake_mode


def export_big(make_model, x):
    with torch.onnx.enable_fake_mode() as ctx:  # expect
        model = make_model()
    with enable_fake_mode():  # expect
        again = make_model()
    return model, again, ctx
