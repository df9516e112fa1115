import numpy
import numpy as np


def gram(data):
    m = numpy.asmatrix(data)  # expect
    return m.T * m
