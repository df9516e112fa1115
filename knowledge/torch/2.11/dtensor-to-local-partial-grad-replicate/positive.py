from torch.distributed.tensor import DTensor


def row_parallel(x: DTensor, weight):
    out = x @ weight
    return out.to_local()  # expect


def gather(dt):
    return dt.to_local()  # expect
