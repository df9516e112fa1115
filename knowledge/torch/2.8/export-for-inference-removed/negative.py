import torch


def export(model, args, table):
    return torch.export.export(model, args).run_decompositions(table)
