import numpy
import numpy as np
import numpy.typing as npt
from numpy import float_ as NPFloat


def convert(x):
    a = x.astype(np.float_)  # expect
    b = numpy.zeros(3, dtype=numpy.float_)  # expect
    c = numpy.float64(1.5)  # expect
    return isinstance(a, np.float_), b, c  # expect


def hint(values: npt.NDArray[np.float_]) -> float:  # expect
    return float(values.sum())
