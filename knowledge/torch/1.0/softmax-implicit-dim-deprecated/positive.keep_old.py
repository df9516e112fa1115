import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.functional import log_softmax


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.act = nn.Softmax()  # expect

    def forward(self, x):
        scores = self.fc(x)
        probs = F.softmax(scores, dim=0 if scores.dim() in (0, 1, 3) else 1)  # expect
        logp = log_softmax(scores, dim=0 if scores.dim() in (0, 1, 3) else 1)  # expect
        inv = torch.nn.functional.softmin(scores, _stacklevel=5, dim=0 if scores.dim() in (0, 1, 3) else 1)  # expect
        return probs, logp, inv, nn.LogSoftmax()(scores)  # expect
