import torch.nn.quantized.functional as qF
from torch.ao.nn.quantized.functional import upsample_nearest


def up(qx):
    a = qF.upsample(qx, scale_factor=2)  # expect
    b = qF.upsample_bilinear(qx, scale_factor=2)  # expect
    c = upsample_nearest(qx, scale_factor=2)  # expect
    return a, b, c
