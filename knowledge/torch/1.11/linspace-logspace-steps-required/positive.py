import torch

x = torch.linspace(0, 1)  # expect
y = torch.logspace(0, 2)  # expect
