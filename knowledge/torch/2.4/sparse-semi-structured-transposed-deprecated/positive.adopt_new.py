from torch.sparse import to_sparse_semi_structured


def compress(w):
    return to_sparse_semi_structured(w)  # expect
