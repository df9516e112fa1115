from torch.utils.data import graph
from torch.utils.data.graph import traverse


def walk(dp):
    a = traverse(dp)  # expect
    b = graph.traverse(dp, only_datapipe=True)  # expect
    return a, b
