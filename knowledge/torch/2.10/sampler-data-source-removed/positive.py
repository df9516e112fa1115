from torch.utils.data import Sampler


def base_samplers(dataset):
    positional = Sampler(dataset)  # expect
    keyword = Sampler(data_source=dataset)  # expect
    return positional, keyword
