import numpy
import numpy as np
from numpy import cfloat


def spectrum(n):
    a = np.zeros(n, dtype=np.complex_)  # expect
    b = np.ones(n, np.cfloat)  # expect
    c = numpy.complex128(1 + 2j)  # expect
    return a, b, c
