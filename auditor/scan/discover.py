"""The files of a project worth scanning: Python sources and notebooks."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

SUFFIXES = (".py", ".ipynb")
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "env", ".tox", ".nox", "node_modules",
     "site-packages", "build", "dist", ".eggs", ".mypy_cache", ".pytest_cache", ".ruff_cache",
     ".ipynb_checkpoints", ".auditor_cache"}
)


def _is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file()


def project_files(root: Path) -> Iterator[Path]:
    """Every .py and .ipynb below root, in a stable order, skipping environments and builds."""
    if root.is_file():
        yield root
        return
    for current, dirs, files in os.walk(root):
        here = Path(current)
        dirs[:] = sorted(
            d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")
            and not _is_virtualenv(here / d)
        )
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                yield here / name
