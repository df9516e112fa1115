import torch
from torch.cuda import graph_annotations


def reset():
    graph_annotations.clear_kernel_annotations()  # expect
    torch.cuda.graph_annotations.clear_kernel_annotations()  # expect
