"""The check behind knowledge/numpy/harvest/waivers.toml's multiarray.py waivers: numpy 2.4.1's
harvest shows "default changed None -> value" for the C functions' dispatchers in
numpy/_core/multiarray.py; run with each numpy, the functions called with those defaults left out
must print the same lines (only the last, the version, differs).

    uv venv /tmp/np23 && uv pip install -p /tmp/np23/bin/python numpy==2.3.5
    uv venv /tmp/np24 && uv pip install -p /tmp/np24/bin/python numpy==2.4.1
    diff <(/tmp/np23/bin/python benchmarks/numpy_dispatcher_defaults.py) \
         <(/tmp/np24/bin/python benchmarks/numpy_dispatcher_defaults.py)
"""
import numpy as np
import numpy.matlib
from numpy.matrixlib import defmatrix


def show(label, f):
    try:
        r = f()
        if isinstance(r, np.ndarray):
            r = (r.dtype.str, r.shape, r.tolist(), r.flags["C_CONTIGUOUS"], r.flags["F_CONTIGUOUS"], type(r).__name__)
        print(label, "->", r)
    except Exception as exc:  # noqa: BLE001  (what a call raises is part of what is compared)
        print(label, "-> raises", type(exc).__name__)

two = (np.ones((2, 2)), np.zeros((1, 2)))
for name, concatenate in (("np", np.concatenate), ("matlib", numpy.matlib.concatenate), ("defmatrix", defmatrix.concatenate)):
    show(f"{name}.concatenate axis", lambda f=concatenate: f(two))
    show(f"{name}.concatenate casting", lambda f=concatenate: f(([1.5], [2.0]), dtype=int))
show("concat axis", lambda: np.concat(two))
show("concat casting", lambda: np.concat(([1.5], [2.0]), dtype=int))
show("bincount minlength", lambda: np.bincount([0, 1, 1]))
show("matlib.bincount", lambda: np.matlib.bincount([2]))
show("can_cast casting", lambda: (np.can_cast(np.float64, np.float32), np.can_cast(np.int8, np.int64), np.matlib.can_cast(np.float64, np.float32)))
def copy():
    a = np.zeros(3, dtype=int); np.copyto(a, np.array([1.5, 2.0, 3.0])); return a
def copy_where():
    a = np.zeros(3); np.copyto(a, np.array([1.0, 2.0, 3.0])); return a
show("copyto casting", copy)
show("copyto where", copy_where)
show("empty_like order", lambda: np.empty_like(np.ones((2, 3), order="F")).flags["F_CONTIGUOUS"])
show("empty_like subok", lambda: type(np.empty_like(np.matrix([[1, 2]]))).__name__)
show("matlib.empty_like", lambda: (np.matlib.empty_like(np.ones((2, 3), order="F")).flags["F_CONTIGUOUS"], type(np.matlib.empty_like(np.matrix([[1]]))).__name__))
show("lexsort axis", lambda: np.lexsort((np.array([[1, 0], [0, 1]]), np.array([[0, 0], [1, 0]]))))
show("lexsort 1d", lambda: np.lexsort(([1, 0, 2], [0, 0, 1])))
x = np.arange(10)
show("may_share_memory", lambda: (np.may_share_memory(x, x[1:]), np.may_share_memory(x[:5], x[5:]), np.matlib.may_share_memory(x, x)))
show("shares_memory", lambda: (np.shares_memory(x, x[1:]), np.shares_memory(x[::2], x[1::2]), np.matlib.shares_memory(x, x)))
show("ravel_multi_index", lambda: np.ravel_multi_index(([1, 2], [2, 3]), (3, 4)))
show("ravel_multi_index mode raise", lambda: np.ravel_multi_index(([3], [0]), (3, 4)))
show("matlib.ravel_multi_index", lambda: np.matlib.ravel_multi_index(([1], [2]), (3, 4)))
show("unravel_index order", lambda: np.unravel_index([6, 11], (3, 4)))
show("matlib.unravel_index", lambda: np.matlib.unravel_index(6, (3, 4)))
print("version", np.__version__)
