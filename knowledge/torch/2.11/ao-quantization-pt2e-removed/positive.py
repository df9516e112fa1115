from torch.ao.quantization.quantize_pt2e import convert_pt2e, prepare_pt2e  # expect
from torch.ao.quantization.quantizer.x86_inductor_quantizer import X86InductorQuantizer  # expect


def quantize(model, quantizer):
    return convert_pt2e(prepare_pt2e(model, quantizer))
