import numpy
import numpy as np


def select(a, wanted):
    return a[numpy.isin(a, wanted).ravel()]  # expect
