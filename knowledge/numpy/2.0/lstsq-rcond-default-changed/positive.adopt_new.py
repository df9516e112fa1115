import numpy as np
from numpy.linalg import lstsq


def fit(a, b):
    x = np.linalg.lstsq(a, b, rcond=None)[0]  # expect
    y, *_ = lstsq(a, b, rcond=None)  # expect
    return x, y
