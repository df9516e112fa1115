import torch


def aggregate(index: torch.Tensor, src: torch.Tensor, n: int):
    out = torch.zeros(n)
    out.scatter_reduce_(0, index, src, reduce=dict(add='sum', multiply='prod')["add"], include_self=True)  # expect
    prod = torch.ones(n).scatter_reduce(0, index, src, reduce=dict(add='sum', multiply='prod')["multiply"], include_self=True)  # expect
    both = torch.scatter_reduce(out, 0, index, src, reduce=dict(add='sum', multiply='prod')["add"], include_self=True)  # expect
    return out, prod, both
