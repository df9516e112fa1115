import torch


class M(torch.nn.Module):
    @torch.jit.unused  # expect
    def debug_only(self, x):
        return x
