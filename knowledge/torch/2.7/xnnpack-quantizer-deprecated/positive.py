import torch
from torch.ao.quantization.quantizer import xnnpack_quantizer
from torch.ao.quantization.quantizer.xnnpack_quantizer import XNNPACKQuantizer, get_symmetric_quantization_config


def make():
    a = XNNPACKQuantizer()  # expect
    b = xnnpack_quantizer.XNNPACKQuantizer()  # expect
    a.set_global(get_symmetric_quantization_config())
    return a, b, torch
