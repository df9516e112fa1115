import torch
import torch.nn as nn
from torch.nn import UpsamplingNearest2d


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)  # expect
        self.up_nearest = torch.nn.Upsample(size=(32, 32), mode='nearest')  # expect
