from torch.distributed.elastic import metrics


@metrics.prof(group="trainer")
def step():
    metrics.put_metric("steps", 1, metric_group="trainer")
