import torch
import torch._dynamo


@torch._dynamo.config.patch(inline_inbuilt_nn_modules=False)  # expect
def compile_model(model):
    print("inlining:", torch._dynamo.config.inline_inbuilt_nn_modules)  # expect
    return torch.compile(model)
