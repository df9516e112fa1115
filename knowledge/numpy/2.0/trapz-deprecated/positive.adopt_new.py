import numpy
import numpy as np
from numpy import trapz


def area(y, x):
    a = numpy.trapezoid(y, x)  # expect
    b = numpy.trapezoid(y)  # expect
    return a, b
