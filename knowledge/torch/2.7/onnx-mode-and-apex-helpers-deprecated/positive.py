import torch
from torch.onnx.utils import disable_apex_o2_state_dict_hook


def export(model, args):
    with torch.onnx.select_model_mode_for_export(model, torch.onnx.TrainingMode.EVAL):  # expect
        torch.onnx.export(model, args, "m.onnx")
    with disable_apex_o2_state_dict_hook(model):  # expect
        return model.state_dict()
