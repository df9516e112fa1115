import torch


def loss_options():
    return torch.nn.LinearCrossEntropyOptions(acc_policy="balanced", batch_chunk_size=4096)  # expect
