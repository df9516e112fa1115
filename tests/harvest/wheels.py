"""Tiny wheels written by the tests: a package `tiny` in two releases that between them show
every kind of candidate change, and the same in a simple-index server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

OLD = {
    "tiny/__init__.py": '''
import warnings
from ._impl import Engine, hidden_helper_user
from .functional import *
from ._C._Functions import *  # noqa

__all__ = ["Engine", "gone", "keep"]

def gone(x):
    return x

def keep(x, dim=None, size_average=None, reduce=None, old_name=1, scale=1.0):
    return x

def shifting(x):
    warnings.warn("shifting is deprecated", DeprecationWarning)
    return x

def _private(x):
    return x
''',
    "tiny/_impl.py": '''
class _Base:
    def base_method(self, a, b=2):
        return a

class Engine(_Base):
    def __init__(self, size, mode="fast"):
        self.size = size

    def run(self, steps=1):
        return steps

    def _inner(self):
        return 0

def hidden_helper_user(x):
    return x
''',
    "tiny/functional.py": '''
import warnings
from . import _reduction as _Reduction

def _get_dim(name):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated.")
    return 0

def softmax(x, dim=None):
    return x

def mse(x, size_average=None, reduce=None, reduction="mean"):
    return x
''',
    "tiny/_reduction.py": '''
import warnings

def legacy_get_string(size_average, reduce, emit_warning=True):
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if emit_warning:
        warnings.warn(warning.format("mean"))
    return "mean"
''',
    "tiny/_C/_Functions.pyi": '''
def cfunc(input: int, *, alpha: int = 1) -> int: ...
def cgone(input: int) -> int: ...
''',
    "tiny/_private_area/thing.py": "def visible_only_here(x):\n    return x\n",
}

NEW = {
    "tiny/__init__.py": '''
import warnings
from ._impl import Engine
from .functional import *
from ._C._Functions import *  # noqa
from typing_extensions import deprecated

__all__ = ["Engine", "keep"]

def keep(x, dim=None, size_average=None, reduce=None, new_name=1, scale=2.0):
    if dim is None:
        warnings.warn("calling keep without dim is deprecated", FutureWarning)
    return x

def shifting(x):
    warnings.warn("shifting is deprecated", FutureWarning)
    return x

@deprecated("decorated is deprecated, use keep", category=FutureWarning)
def decorated(x):
    return x

def eig(x):
    raise RuntimeError("tiny.eig was deprecated and is now removed; use tiny.linalg.eig")

_deprecated_attrs = {"has_thing": bool}

def __getattr__(name):
    replacement = _deprecated_attrs.get(name)
    if replacement is not None:
        warnings.warn(f"'{name}' is deprecated", stacklevel=2)
        return replacement()
    raise AttributeError(name)
''',
    "tiny/_impl.py": '''
class _Base:
    def base_method(self, a):
        return a

class Engine(_Base):
    def __init__(self, size, mode="slow"):
        self.size = size

    def run(self, steps=1):
        return steps
''',
    "tiny/functional.py": '''
import warnings
from . import _reduction as _Reduction

def _get_dim(name):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated.")
    return 0

def softmax(x, dim=None):
    if dim is None:
        dim = _get_dim("softmax")
    return x

def mse(x, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return x

def quiet(x, size_average=None):
    return _Reduction.legacy_get_string(size_average, None, emit_warning=False)
''',
    "tiny/_reduction.py": OLD["tiny/_reduction.py"],
    "tiny/_private_area/thing.py": OLD["tiny/_private_area/thing.py"],
}
# NEW has no _C/_Functions.pyi: cfunc and cgone are unknown in it, not removed.


def write_wheel(directory: Path, name: str, version: str, files: dict[str, str], tag: str) -> Path:
    path = directory / f"{name}-{version}-py3-none-{tag}.whl"
    with zipfile.ZipFile(path, "w") as z:
        for member, text in files.items():
            z.writestr(member, text.lstrip("\n"))
        z.writestr(f"{name}-{version}.dist-info/METADATA", f"Name: {name}\nVersion: {version}\n")
        z.writestr(f"{name}-{version}.dist-info/big.bin", b"\0" * 4096 if tag != "macosx_11_0_arm64" else b"")
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
