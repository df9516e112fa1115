from torch.utils.data import DataLoader


def loaders(ds, batch: int):
    a = DataLoader(ds, batch_size=batch)  # expect
    b = DataLoader(ds, batch_size=batch, num_workers=0)  # expect
    return a, b
