import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import load_state_dict


def roundtrip(state, writer, reader):
    dcp.save_state_dict(state, storage_writer=writer)  # expect
    load_state_dict(state, storage_reader=reader)  # expect
