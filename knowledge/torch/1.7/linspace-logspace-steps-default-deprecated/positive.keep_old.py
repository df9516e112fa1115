import torch

x = torch.linspace(0, 1, steps=100)  # expect
y = torch.logspace(0, 2, steps=100)  # expect
