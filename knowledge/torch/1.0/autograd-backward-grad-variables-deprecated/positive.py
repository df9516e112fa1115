import torch
from torch import autograd


def step(loss, seed):
    torch.autograd.backward([loss], grad_variables=[seed])  # expect
    autograd.backward(loss, grad_variables=seed, retain_graph=True)  # expect
