from torch.utils.data import DataLoader


def loaders(dataset, device: str):
    train = DataLoader(dataset, pin_memory=True)  # expect
    val = DataLoader(dataset, pin_memory=True)  # expect
    return train, val
