import torch.nn.functional as F


def sample(logits):
    a = F.gumbel_softmax(logits, tau=0.5, hard=True)
    b = F.softmax(logits, dim=-1)
    return a, b
