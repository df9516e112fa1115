import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem


def setup(group):
    symm_mem.enable_symm_mem_for_group(group.group_name)  # expect
    return dist.get_rank(group)
