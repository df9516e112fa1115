from torch.utils.data.datapipes.iter.grouping import SHARDING_PRIORITIES, ShardingFilterIterDataPipe


def shard(datapipe):
    return ShardingFilterIterDataPipe(datapipe, sharding_group_filter=SHARDING_PRIORITIES.DEFAULT)  # expect
