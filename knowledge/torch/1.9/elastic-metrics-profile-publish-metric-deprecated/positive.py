from torch.distributed.elastic import metrics
from torch.distributed.elastic.metrics import publish_metric


@metrics.profile("trainer")  # expect
def step():
    publish_metric("trainer", "steps", 1)  # expect
