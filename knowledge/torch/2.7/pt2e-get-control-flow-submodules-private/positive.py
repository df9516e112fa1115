import torch
from torch.ao.quantization.pt2e import graph_utils
from torch.ao.quantization.pt2e.graph_utils import get_control_flow_submodules


def branches(gm: torch.fx.GraphModule):
    found = get_control_flow_submodules(gm)  # expect
    again = graph_utils.get_control_flow_submodules(gm)  # expect
    return found, again
