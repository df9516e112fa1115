import torch


def update(acc: torch.Tensor, num: torch.Tensor, den: torch.Tensor):
    a = torch.addcdiv(acc, num.long(), den.long())  # expect
    steps = torch.tensor([1, 2, 3], dtype=torch.int64)
    b = acc.addcdiv(steps, den)  # expect
    acc.addcdiv_(tensor1=num.int(), tensor2=den)  # expect
    return a, b
