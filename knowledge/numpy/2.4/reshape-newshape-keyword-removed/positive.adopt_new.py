import numpy as np


def square(a):
    return np.reshape(a, shape=(2, 2))  # expect
