import torch.nn.quantized.functional as qF


def up(qx):
    a = qF.interpolate(qx, scale_factor=2, mode="bilinear")
    b = qF.interpolate(qx, scale_factor=2)
    return a, b
