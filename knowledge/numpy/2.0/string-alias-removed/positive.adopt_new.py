import numpy
import numpy as np
from numpy import string_


def labels(names):
    a = np.array(names, dtype=np.string_)  # expect
    b = numpy.bytes_(b"abc")  # expect
    return a, b
