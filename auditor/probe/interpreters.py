"""Python interpreters installed on this machine, to match the wheels a version has.

torch 1.12 and older have no wheels for Python 3.11, so probing them needs an older interpreter:
pyenv's (`$(pyenv root)/versions/3.10.13/bin/python`) and those on PATH (`python3.10`) are found.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from auditor.errors import UsageError

MIN_PYTHON = (3, 7)  # child.py's syntax; uv creates environments from 3.7 on
_VERSION_DIR = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


@dataclass(frozen=True, slots=True)
class Interpreter:
    path: str
    version: str  # X.Y.Z

    @property
    def minor(self) -> str:
        return ".".join(self.version.split(".")[:2])

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split("."))


def query(path: str) -> Interpreter | None:
    """The interpreter at `path`, or None when it does not run."""
    try:
        done = subprocess.run(
            [path, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True, text=True, timeout=30, check=False, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = done.stdout.strip()
    if done.returncode != 0 or not _VERSION_DIR.match(version):
        return None
    return Interpreter(path, version)


def _pyenv_root() -> Path | None:
    if os.environ.get("PYENV_ROOT"):
        return Path(os.environ["PYENV_ROOT"])
    if Path.home().joinpath(".pyenv").is_dir():
        return Path.home() / ".pyenv"
    pyenv = shutil.which("pyenv")
    if pyenv:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    return None


def installed_pyenv() -> list[Interpreter]:
    root = _pyenv_root()
    found = []
    if root is not None and (root / "versions").is_dir():
        for entry in sorted((root / "versions").iterdir()):
            match = _VERSION_DIR.match(entry.name)
            python = entry / "bin" / "python"
            if match and python.exists():
                found.append(Interpreter(str(python), entry.name))
    return found


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
    others = sorted((i for i in by_minor.values() if i is not current), key=lambda i: i.key, reverse=True)
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
