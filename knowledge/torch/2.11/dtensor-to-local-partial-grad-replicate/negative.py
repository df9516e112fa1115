from torch.distributed.tensor import DTensor, Replicate


def row_parallel(x: DTensor, weight):
    out = x @ weight
    return out.to_local(grad_placements=[Replicate()])


def gather(dt):
    return dt.to_local(grad_placements=(Replicate(),))
