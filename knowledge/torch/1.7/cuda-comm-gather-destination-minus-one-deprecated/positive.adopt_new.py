import torch.cuda.comm as comm


def collect(parts):
    return comm.gather(parts, dim=0, destination='cpu')  # expect
