import torch
from torch.export import ExportedProgram


def serve(program: ExportedProgram, model: torch.nn.Module, batch: torch.Tensor):
    runner = program.module()  # expect
    try:
        return runner(batch)
    except RuntimeError:
        return model(batch)

