import torch
from torch._dynamo.backends.tvm import tvm_meta_schedule


def compile_tuned(model):
    tuned = torch.compile(model, backend="tvm", options={"scheduler": "meta_schedule", "trials": 2000})  # expect
    return tuned, tvm_meta_schedule  # expect
