"""A small 1-D convolutional encoder for sensor sequences."""

import torch
from torch import nn
import torch.nn.functional as F


class SequenceEncoder(nn.Module):
    def __init__(self, channels: int = 16, hidden: int = 64, p_drop: float = 0.2):
        super().__init__()
        self.conv1 = nn.Conv1d(channels, hidden, kernel_size=5, padding=2)
        self.conv2 = nn.Conv1d(hidden, hidden, kernel_size=5, padding=2)
        # (batch, channels, time) activations: 3-D input to a 2-D dropout
        self.drop = nn.Dropout2d(p_drop)
        self.head = nn.Linear(hidden, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.conv1(x))
        x = self.drop(x)
        x = F.dropout2d(F.relu(self.conv2(x)), p=0.1, training=self.training)
        return self.head(x.mean(dim=-1))


def reset_to_integer_codes(layer: nn.Linear, codes: torch.Tensor) -> None:
    """Overwrite a layer's weights with integer codebook indices for inspection."""
    layer.weight.data = codes.long()
