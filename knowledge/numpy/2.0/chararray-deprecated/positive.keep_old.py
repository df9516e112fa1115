import numpy
import numpy as np
from numpy import chararray


def grid(n):
    a = numpy.char.chararray((n, n))  # expect
    return a, numpy.char.chararray((2,), itemsize=3)  # expect
