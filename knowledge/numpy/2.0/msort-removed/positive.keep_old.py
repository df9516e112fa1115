import numpy
import numpy as np


def order(a):
    return numpy.sort(a, axis=0)  # expect
