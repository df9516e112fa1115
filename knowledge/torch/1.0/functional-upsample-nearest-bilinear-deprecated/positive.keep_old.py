import torch
import torch.nn.functional as F


def up(x):
    a = torch.nn.functional.interpolate(x, scale_factor=2, mode='nearest')  # expect
    b = torch.nn.functional.interpolate(x, size=(8, 8), mode='bilinear', align_corners=True)  # expect
    return a, b
