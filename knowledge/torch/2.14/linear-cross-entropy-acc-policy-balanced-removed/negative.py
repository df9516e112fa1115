import torch


def loss_options(policy="balanced"):
    print(policy)
    return torch.nn.LinearCrossEntropyOptions(acc_policy="compact", batch_chunk_size=4096)
