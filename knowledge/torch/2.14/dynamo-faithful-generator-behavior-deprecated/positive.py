import torch
import torch._dynamo.config as dynamo_config


def compile_eagerly(fn):
    with dynamo_config.patch(enable_faithful_generator_behavior=False):  # expect
        return torch.compile(fn)


def lazy():
    return dynamo_config.enable_faithful_generator_behavior  # expect
