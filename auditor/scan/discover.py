"""The files of a project worth scanning: Python sources and notebooks.

Skipped without a word: version control, caches, virtualenvs and conda environments
(recognised by their marker files, whatever their name), site-packages, build output, what the
project's `.gitignore` files ignore and what `[tool.auditor] exclude` excludes. Skipped with a
reason: symlink loops, symlinks (to files or folders) leading out of the project, broken symlinks, folders that cannot
be listed, pipes, sockets and devices named like sources.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from auditor.models import Skipped
from auditor.scan.config import ScanConfig

SUFFIXES = (".py", ".ipynb")
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "env", ".tox", ".nox", "node_modules",
     "site-packages", "dist-packages", "build", "dist", ".eggs", ".mypy_cache", ".pytest_cache",
     ".ruff_cache", ".ipynb_checkpoints", ".auditor_cache"}
)


def _is_environment(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file() or (directory / "conda-meta").is_dir()


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    relatives: list[str] = field(default_factory=list)  # of each file, from the root ("/"-separated)


def _gitignore(directory: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = (directory / ".gitignore").read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def _ignored(specs: list[tuple[str, pathspec.GitIgnoreSpec]], relative: str, is_dir: bool) -> bool:
    """Whether the .gitignore files above `relative` ignore it; the deepest file has the last word."""
    verdict = False
    for base, spec in specs:
        if base and not relative.startswith(base + "/"):
            continue
        inner = relative[len(base) + 1 :] if base else relative
        result = spec.check_file(inner + ("/" if is_dir else ""))
        if result.include is not None:
            verdict = result.include
    return verdict


def discover(root: Path, config: ScanConfig | None = None) -> Discovery:
    """Every .py and .ipynb below root, in a stable order, and what was skipped and why."""
    config = config or ScanConfig()
    found = Discovery()
    if not root.is_dir():
        found.files.append(root)
        found.relatives.append(root.name)
        return found
    real_root = Path(os.path.realpath(root))
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    if config.respect_gitignore:
        spec = _gitignore(root)
        if spec is not None:
            specs.append(("", spec))

    def walk(directory: Path, inside: str, seen: tuple[Path, ...]) -> None:
        """`inside`: the folder's path from the root, "" for the root itself."""
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            found.skipped.append(Skipped(inside or ".", f"unreadable folder: {exc.strerror or exc}"))
            return
        for entry in entries:
            path = Path(entry.path)
            relative = f"{inside}/{entry.name}" if inside else entry.name
            try:
                is_dir = entry.is_dir()  # follows symlinks
            except OSError:
                is_dir = False
            link = entry.is_symlink()
            if link:
                dead = _dead_link(path)
                if dead is not None:
                    # a link named like a folder may have been one: say so too
                    wanted = entry.name.endswith(SUFFIXES) or "." not in entry.name.lstrip(".")
                    if wanted and not (config.excluded(relative) or _ignored(specs, relative, is_dir=False)):
                        found.skipped.append(Skipped(relative, dead))
                    continue
            if is_dir:
                if entry.name in SKIP_DIRS or entry.name.endswith(".egg-info") or _is_environment(path):
                    continue
                if config.excluded(relative, is_dir=True) or _ignored(specs, relative, is_dir=True):
                    continue
                real = Path(os.path.realpath(path))
                if entry.is_symlink():
                    if real in seen:
                        found.skipped.append(Skipped(relative, f"symlink loop: leads back to {_shown(real, real_root)}"))
                        continue
                    if real != real_root and real_root not in real.parents:
                        found.skipped.append(Skipped(relative, "symlink leads outside the project"))
                        continue
                if config.respect_gitignore:
                    spec = _gitignore(path)
                    if spec is not None:
                        specs.append((relative, spec))
                walk(path, relative, (*seen, real))
                continue
            if not entry.name.endswith(SUFFIXES):
                continue
            if config.excluded(relative) or _ignored(specs, relative, is_dir=False):
                continue
            if link:
                real = Path(os.path.realpath(path))
                if real_root not in real.parents:
                    found.skipped.append(Skipped(relative, "symlink leads outside the project"))
                    continue
            if not entry.is_file():  # reading a pipe would wait forever, a device forever more
                found.skipped.append(Skipped(relative, "not a regular file (a pipe, socket or device)"))
                continue
            found.files.append(path)
            found.relatives.append(relative)

    walk(root, "", (real_root,))
    return found


def _dead_link(path: Path) -> str | None:
    """Why the symlink at `path` leads nowhere, or None when it leads to something."""
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop: it leads back to itself"
        return "broken symlink"
    return None


def _shown(real: Path, real_root: Path) -> str:
    return "the project root" if real == real_root else real.relative_to(real_root).as_posix() if real_root in real.parents else str(real)


def project_files(root: Path, config: ScanConfig | None = None) -> Iterator[Path]:
    """Every .py and .ipynb below root, in a stable order (what `discover` finds, without reasons)."""
    yield from discover(root, config).files
