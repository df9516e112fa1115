import ast
import numpy as np


def read(text):
    return ast.literal_eval(text)  # expect
