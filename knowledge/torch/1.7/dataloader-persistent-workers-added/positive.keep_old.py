from torch.utils.data import DataLoader


def loader(ds, workers: int):
    return DataLoader(ds, batch_size=32, num_workers=workers)  # expect
