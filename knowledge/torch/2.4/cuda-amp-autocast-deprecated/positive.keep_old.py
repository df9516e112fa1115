import torch
from torch.cuda.amp import autocast


def train_step(model, x):
    with torch.autocast('cuda'):  # expect
        y = model(x)
    with autocast(dtype=torch.float16):  # expect
        z = model(y)
    with torch.cpu.amp.autocast(dtype=torch.bfloat16):  # expect
        return model(z)


@torch.autocast('cuda')  # expect
def infer(model, x):
    return model(x)
