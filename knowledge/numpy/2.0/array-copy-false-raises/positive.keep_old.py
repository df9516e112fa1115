import numpy
import numpy as np


def view(x):
    a = numpy.asarray(x)  # expect
    b = numpy.asarray(x, dtype=np.float32)  # expect
    return a, b
