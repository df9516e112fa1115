"""Python interpreters installed on this machine: pyenv's, and any asked about by path.

The probes run old torch releases on the interpreters their wheels need (`probe.interpreters`);
the scan reads sources of syntax newer than its own Python with a newer one (`scan.syntax`).
This module stays light: a scan imports it without the probe machinery.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

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
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
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
    """pyenv's interpreters, known by their folders' names (none is run)."""
    root = _pyenv_root()
    found = []
    if root is not None and (root / "versions").is_dir():
        for entry in sorted((root / "versions").iterdir()):
            match = _VERSION_DIR.match(entry.name)
            python = entry / "bin" / "python"
            if match and python.exists():
                found.append(Interpreter(str(python), entry.name))
    return found
