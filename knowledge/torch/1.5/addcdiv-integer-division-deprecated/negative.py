import torch


def update(acc: torch.Tensor, num: torch.Tensor, den: torch.Tensor):
    a = torch.addcdiv(acc, num.float(), den.float())
    b = acc.addcdiv(torch.ones(3, dtype=torch.float32), den)
    c = torch.addcmul(acc, num.long(), den.long())
    text = "torch.addcdiv(acc, num.long(), den.long())"
    return a, b, c, text
