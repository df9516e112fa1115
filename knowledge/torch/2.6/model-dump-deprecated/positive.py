import torch.utils.model_dump
from torch.utils.model_dump import main


def report(path):
    torch.utils.model_dump.main(["model_dump", "--style", "json", path])  # expect
    main(["model_dump", path])  # expect
