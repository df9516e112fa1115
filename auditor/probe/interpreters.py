"""Python interpreters installed on this machine, to match the wheels a version has.

torch 1.12 and older have no wheels for Python 3.11, so probing them needs an older interpreter:
pyenv's (`$(pyenv root)/versions/3.10.13/bin/python`) and those on PATH (`python3.10`) are found.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from functools import cache
from pathlib import Path

from auditor.errors import UsageError
from auditor.pythons import Interpreter, installed_pyenv, query

__all__ = ["Interpreter", "discover", "query", "resolve"]

MIN_PYTHON = (3, 7)  # child.py's syntax; uv creates environments from 3.7 on


def _on_path() -> list[Interpreter]:
    found = []
    for minor in range(20, MIN_PYTHON[1] - 1, -1):
        path = shutil.which(f"python3.{minor}")
        if path and "shims" not in Path(path).parts:  # pyenv's shims are found above
            interpreter = query(path)
            if interpreter is not None:
                found.append(interpreter)
    return found


@cache
def discover() -> tuple[Interpreter, ...]:
    """One interpreter per Python minor version: the running one first, then newest first."""
    current = Interpreter(sys.executable, "{}.{}.{}".format(*sys.version_info[:3]))
    by_minor: dict[str, Interpreter] = {current.minor: current}
    for interpreter in installed_pyenv() + _on_path():
        if interpreter.key[:2] >= MIN_PYTHON:
            by_minor.setdefault(interpreter.minor, interpreter)
    others = sorted(
        (i for i in by_minor.values() if i is not current), key=lambda i: i.key, reverse=True
    )
    return (current, *others)


def resolve(spec: str) -> Interpreter:
    """`--python-old/--python-new`: a path to an interpreter, or a version such as `3.10`."""
    if re.fullmatch(r"\d+\.\d+(\.\d+)?", spec):
        for interpreter in discover():
            if interpreter.version == spec or interpreter.minor == spec:
                return interpreter
        known = ", ".join(i.minor for i in discover())
        raise UsageError(f"no Python {spec} found on this machine (found {known})")
    found = query(spec if os.sep in spec else (shutil.which(spec) or spec))
    if found is None:
        raise UsageError(f"no such interpreter: {spec}")
    return found
