import torch
from torch import nn
from torch.nn.utils import weight_norm


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = weight_norm(nn.Linear(4, 4))  # expect
        torch.nn.init.xavier_uniform_(self.fc.weight)  # expect
        nn.init.constant(self.fc.bias, 0.0)  # expect


def step(model: nn.Module, optimizer):
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect
    optimizer.step()
    net = Net()
    return net.state_dict(None, "net.")
