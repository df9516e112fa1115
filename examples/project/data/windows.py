"""Cut long recordings into windows and label them."""

import numpy as np
import torch


def window_starts(length: int, window: int, stride: int) -> torch.Tensor:
    n_windows = (length - window) // stride + 1  # plain Python ints: unaffected
    return torch.arange(n_windows) * stride


def centre_offsets(starts: torch.Tensor, window: int) -> torch.Tensor:
    # Offsets relative to the recording's centre can be negative.
    centred = starts - starts.max() // 2
    return torch.floor_divide(centred, window)


def bucket_of(offsets: torch.Tensor, bucket: int) -> torch.Tensor:
    offsets //= bucket
    return offsets


def smooth_labels(n_samples: int, n_classes: int) -> torch.Tensor:
    labels = torch.randint(0, n_classes, (n_samples,))
    # Keep every label at least 0.1 so the loss never sees an exact zero.
    return torch.clamp(labels, min=0.1)


def numpy_reference(values: np.ndarray) -> np.ndarray:
    return np.floor_divide(values, 2)  # numpy already floors: not a torch call site


def clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))
