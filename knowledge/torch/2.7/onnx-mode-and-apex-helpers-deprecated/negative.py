import torch


def export(model, args):
    model.eval()
    torch.onnx.export(model, args, "m.onnx")
    return model.state_dict()
