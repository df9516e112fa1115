import torch


def record(log):
    log.set_vital("Dataloader", "enabled", "True")
    torch.set_default_dtype(torch.float32)
