import torch
from torch.ao.quantization.pt2e.graph_utils import find_sequential_partitions


def get_control_flow_submodules(gm):
    return [m for n, m in gm.named_modules() if n]


def branches(gm: torch.fx.GraphModule):
    return get_control_flow_submodules(gm), find_sequential_partitions
