import torch
from torch.ao.quantization import get_default_qat_qconfig_mapping


def configs():
    a = torch.ao.quantization.get_default_qconfig_mapping("fbgemm")
    b = get_default_qat_qconfig_mapping("fbgemm")
    return a.to_dict(), b
