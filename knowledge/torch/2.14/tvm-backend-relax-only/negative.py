import torch


def compile_tuned(model, pipeline):
    return torch.compile(model, backend="inductor", options={"max_autotune": True}), pipeline
