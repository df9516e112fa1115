from torch.utils.dlpack import DLDeviceType


def is_gpu(device):
    return device[0] in (DLDeviceType.kDLGPU, DLDeviceType.kDLCPUPinned)  # expect
