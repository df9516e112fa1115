from torch.utils.data.graph import traverse_dps


def walk(dp):
    return traverse_dps(dp)
