import torch
import torch.nn.functional as F
from torch.nn.functional import affine_grid, grid_sample


def warp(img: torch.Tensor, theta: torch.Tensor):
    grid = F.affine_grid(theta, img.size(), align_corners=True)  # expect
    out = F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=True)  # expect
    grid2 = affine_grid(theta, img.size(), align_corners=True)  # expect
    return out, grid_sample(img, grid2, align_corners=True)  # expect
