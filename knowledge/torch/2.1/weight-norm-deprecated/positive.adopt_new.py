import torch
from torch import nn
from torch.nn.utils import weight_norm


class Vocoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = torch.nn.utils.parametrizations.weight_norm(nn.Conv1d(80, 256, 7))  # expect
        self.post = torch.nn.utils.parametrizations.weight_norm(nn.Conv1d(256, 1, 7))  # expect
        self.mid = torch.nn.utils.parametrizations.weight_norm(nn.Linear(4, 4), name="weight")  # expect
