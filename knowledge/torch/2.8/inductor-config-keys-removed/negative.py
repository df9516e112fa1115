import torch
import torch._functorch.config as functorch_config


def wrapper_level():
    if torch._inductor.config.aot_inductor.compile_wrapper_opt_level == "O0":
        return "O0"
    return functorch_config.custom_op_default_layout_constraint
