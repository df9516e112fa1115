import torch


def adam_step(p: torch.Tensor, grad: torch.Tensor, exp_avg: torch.Tensor, exp_avg_sq: torch.Tensor, beta1: float, beta2: float):
    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)  # expect
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)  # expect
    p.sub_(exp_avg, alpha=0.1)  # expect
    denom = torch.add(exp_avg_sq, torch.ones_like(p), alpha=1e-8)  # expect
    p.addcdiv_(exp_avg, denom, value=-0.01)  # expect
    return torch.addcmul(p, grad, grad, value=0.5)  # expect
