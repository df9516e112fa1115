import torch


def export(model, args, add_float, add_int):
    table = {torch.ops.aten.add.Tensor: [add_float, add_int]}
    return torch.onnx.export(model, args, dynamo=True, custom_translation_table=table)  # expect
