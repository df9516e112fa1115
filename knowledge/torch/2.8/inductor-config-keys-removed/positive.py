import torch
import torch._inductor.config as inductor_config


def wrapper_level():
    if torch._inductor.config.aot_inductor.compile_wrapper_with_O0:  # expect
        return "O0"
    return inductor_config.custom_op_default_layout_constraint  # expect
