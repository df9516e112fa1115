import torch
from torch._dynamo.utils import CompileProfiler


def profile(fn, x):
    with CompileProfiler() as prof:  # expect
        torch.compile(fn, backend=prof)(x)
    other = torch._dynamo.utils.CompileProfiler()  # expect
    return prof.report(), other
