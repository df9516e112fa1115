import torch
import torch.utils._pytree as pytree
from torch.utils import _pytree
from torch.utils._pytree import _register_pytree_node


class ModelOutput(dict):
    pass


torch.utils._pytree.register_pytree_node(ModelOutput, lambda o: (list(o.values()), list(o)), lambda v, k: ModelOutput(zip(k, v)))  # expect
torch.utils._pytree.register_pytree_node(tuple, lambda t: (list(t), None), lambda v, c: tuple(v))  # expect
torch.utils._pytree.register_pytree_node(ModelOutput, lambda o: ([], None), lambda v, c: ModelOutput())  # expect
