import torch
import torch._dynamo.config as dynamo_config


def compile_eagerly(fn):
    with dynamo_config.patch(enable_trace_contextlib=False):
        return torch.compile(fn)


def lazy():
    return dynamo_config.enable_trace_contextlib
