import torch
import torch._dynamo


@torch._dynamo.config.patch(cache_size_limit=64)
def compile_model(model):
    print("limit:", torch._dynamo.config.cache_size_limit)
    return torch.compile(model)
