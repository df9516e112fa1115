import torch


def build(model: torch.nn.Module):
    plain = torch.compile(model)
    default = torch.compile(model, mode="default")
    graphs = torch.compile(model, mode="reduce-overhead")
    return plain, default, graphs
