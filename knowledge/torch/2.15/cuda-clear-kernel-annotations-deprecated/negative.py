import torch


def reset(graph):
    torch.cuda.synchronize()
    del graph
