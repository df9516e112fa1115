import torch


def adjacency(indices, values, n: int):
    a = torch.sparse_coo_tensor(indices, values, torch.Size([n, n]))  # expect
    b = torch.cuda.sparse.FloatTensor(indices, values, torch.Size([n, n]))  # expect
    c = torch.sparse_coo_tensor(indices, values.long(), torch.Size([n, n]))  # expect
    return a, b, c
