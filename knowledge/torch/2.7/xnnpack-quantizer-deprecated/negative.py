from torch.ao.quantization.quantizer.x86_inductor_quantizer import X86InductorQuantizer


class XNNPACKQuantizer:
    pass


def make():
    return X86InductorQuantizer(), XNNPACKQuantizer()
