import numpy
import numpy as np


def tidy(x):
    return numpy.round(x, 2)  # expect
