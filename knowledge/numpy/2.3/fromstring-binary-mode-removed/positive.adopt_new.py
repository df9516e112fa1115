import numpy
import numpy as np


def parse(payload):
    return numpy.frombuffer(payload, dtype=np.uint8).copy()  # expect
