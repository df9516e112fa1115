import torch

x = torch.linspace(0, 1, 100)
y = torch.logspace(0, 2, steps=50)
