from torch.ao.quantization import QConfig, quantize_dynamic
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e


def quantize(model, quantizer):
    return convert_pt2e(prepare_pt2e(model, quantizer)), QConfig, quantize_dynamic
