import torch.distributed.checkpoint as dcp


def roundtrip(state, path, model):
    dcp.save(state, checkpoint_id=path)
    dcp.load(state, checkpoint_id=path)
    model.load_state_dict(state["model"])
