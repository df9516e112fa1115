import torch
import torch.nn.quantized as nnq
from torch.nn.quantized.dynamic import Linear as DynamicLinear


def build():
    a = nnq.Linear(4, 4)  # expect
    b = DynamicLinear(4, 4)  # expect
    return a, b
