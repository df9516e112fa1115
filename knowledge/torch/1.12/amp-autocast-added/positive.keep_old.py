import torch
from torch.amp import autocast


def step(model, x):
    with torch.autocast("cuda", dtype=torch.float16):  # expect
        y = model(x)
    with torch.autocast("cpu"):  # expect
        return model(y)
