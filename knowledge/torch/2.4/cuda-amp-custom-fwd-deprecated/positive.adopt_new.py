import torch
from torch.cuda.amp import custom_bwd, custom_fwd


class Scale(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(cast_inputs=torch.float16, device_type='cuda')  # expect
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @custom_bwd  # expect
    def backward(ctx, grad):
        return grad * 2


class Plain(torch.autograd.Function):
    @staticmethod
    @custom_fwd  # expect
    def forward(ctx, x):
        return x
