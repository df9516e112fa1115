import numpy as np


def load(path):
    table = np.genfromtxt(path, dtype=None, delimiter=",", names=True, encoding=None)  # expect
    dates = np.loadtxt(path, converters={0: lambda s: s.decode()}, encoding=None)  # expect
    return table, dates
