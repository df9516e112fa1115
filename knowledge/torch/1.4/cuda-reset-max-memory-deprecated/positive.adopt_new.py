import torch


def profile_step(step):
    torch.cuda.reset_peak_memory_stats()  # expect
    torch.cuda.reset_peak_memory_stats()  # expect
    step()
    return torch.cuda.max_memory_allocated()
