from torch.utils.data import Sampler


class LengthSampler(Sampler):
    def __init__(self, dataset):
        super().__init__()
        self.dataset = dataset

    def __iter__(self):
        return iter(sorted(range(len(self.dataset)), key=lambda i: len(self.dataset[i])))


def base_sampler(dataset):
    print(len(dataset))
    return Sampler()
