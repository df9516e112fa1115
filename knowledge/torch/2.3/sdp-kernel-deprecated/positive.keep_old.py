import torch
import torch.nn.functional as F
from torch.backends.cuda import sdp_kernel


def attend(q, k, v):
    with torch.nn.attention.sdpa_kernel(backends=[torch.nn.attention.SDPBackend.FLASH_ATTENTION, torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION, torch.nn.attention.SDPBackend.CUDNN_ATTENTION]):  # expect
        a = F.scaled_dot_product_attention(q, k, v)
    with torch.nn.attention.sdpa_kernel(backends=[torch.nn.attention.SDPBackend.FLASH_ATTENTION, torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION, torch.nn.attention.SDPBackend.MATH, torch.nn.attention.SDPBackend.CUDNN_ATTENTION]):  # expect
        return a + F.scaled_dot_product_attention(q, k, v)
