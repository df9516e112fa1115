import numpy as np


def summary(a):
    low = np.percentile(a, 5, method="lower")  # expect
    mid = np.nanquantile(a, 0.5, method="nearest")  # expect
    return low, mid
