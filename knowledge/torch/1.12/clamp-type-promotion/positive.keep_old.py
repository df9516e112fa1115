import torch


def clip_labels(n: int, scores: torch.Tensor):
    labels = torch.randint(0, 5, (n,))
    a = torch.clamp(labels, min=0.5).to(labels.dtype)  # expect
    b = labels.clamp(0.1, 4.5)  # expect
    c = torch.clip(labels, max=3.5).to(labels.dtype)  # expect
    idx = torch.arange(10)
    idx.clamp_(min=0.5)  # expect
    return a, b, c
