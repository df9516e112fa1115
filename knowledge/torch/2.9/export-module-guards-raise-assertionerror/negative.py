import torch


class Wrapper:
    def module(self):
        return torch.nn.Identity()


def serve(model: torch.nn.Module, batch: torch.Tensor):
    runner = Wrapper().module()
    return runner(batch), model.modules()
