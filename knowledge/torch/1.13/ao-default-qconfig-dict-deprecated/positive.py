import torch
from torch.ao.quantization import get_default_qat_qconfig_dict


def configs():
    a = torch.ao.quantization.get_default_qconfig_dict("fbgemm")  # expect
    b = get_default_qat_qconfig_dict("fbgemm")  # expect
    return a, b
