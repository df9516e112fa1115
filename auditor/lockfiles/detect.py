"""Read a lock file: find its format by name and content, then parse it."""

from __future__ import annotations

from pathlib import Path

from auditor.errors import LockfileError
from auditor.lockfiles.conda_env import CONDA_ENV_EXPORT, CONDA_ENVIRONMENT
from auditor.lockfiles.conda_list import CONDA_EXPLICIT, CONDA_LIST_EXPORT
from auditor.lockfiles.conda_lock import CONDA_LOCK
from auditor.lockfiles.freeze import FREEZE
from auditor.lockfiles.interface import LockFormat, read_text
from auditor.lockfiles.pdm import PDM
from auditor.lockfiles.pipfile import PIPFILE
from auditor.lockfiles.pipfile_manifest import PIPFILE_MANIFEST
from auditor.lockfiles.poetry import POETRY
from auditor.lockfiles.pylock import PYLOCK
from auditor.lockfiles.pyproject import PYPROJECT
from auditor.lockfiles.requirements import REQUIREMENTS
from auditor.lockfiles.requirements import parse as parse_requirements
from auditor.lockfiles.resolve import resolve as resolve_lock
from auditor.lockfiles.setupcfg import SETUP_CFG
from auditor.lockfiles.setuppy import SETUP_PY
from auditor.lockfiles.uv import UV
from auditor.models import Lock

# On equal claims the earlier format wins: pip freeze output is also a valid requirements file.
FORMATS: tuple[LockFormat, ...] = (
    FREEZE,
    REQUIREMENTS,
    PIPFILE,
    POETRY,
    UV,
    PDM,
    PYLOCK,
    CONDA_LOCK,
    CONDA_ENV_EXPORT,
    CONDA_ENVIRONMENT,
    CONDA_LIST_EXPORT,
    CONDA_EXPLICIT,
    PYPROJECT,
    SETUP_PY,
    SETUP_CFG,
    PIPFILE_MANIFEST,
)

__all__ = ["FORMATS", "detect", "format_names", "parse_lock", "read_lock", "read_text"]


def format_names() -> list[str]:
    return [f.name for f in FORMATS]


def find_format(name: str) -> LockFormat:
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    raise LockfileError(f"unknown lock format {name!r} (known: {', '.join(format_names())})")


def detect(path: Path, text: str) -> LockFormat:
    best, score = FORMATS[0], 0
    for fmt in FORMATS:
        claim = fmt.claims(path, text)
        if claim > score:
            best, score = fmt, claim
    if score == 0:
        what = "empty file" if not text.strip() else "unknown lock format"
        raise LockfileError(
            f"{what}: cannot tell its format (known: {', '.join(format_names())})", path, 1
        )
    return best


def parse_lock(
    path: Path, text: str, format_name: str | None = None, root: Path | None = None
) -> Lock:
    """A lock's text, read as `format_name` or the format detected. An empty file is an error in
    every format: a lock always names its packages, so an empty one was truncated or never made,
    and reading it as "no packages" would report every package removed. `root`: the repository
    a requirements file's includes must stay inside."""
    fmt = find_format(format_name) if format_name is not None else None
    if not text.strip():
        name = f"a {fmt.name}" if fmt else "a lock"
        raise LockfileError(f"empty file: {name} lists its packages, this one has none", path, 1)
    fmt = fmt or detect(path, text)
    if fmt is REQUIREMENTS and root is not None:
        return parse_requirements(path, text, root=root)
    return fmt.parse(path, text)


def read_lock(
    path: str | Path,
    format_name: str | None = None,
    resolve: bool = False,
    root: Path | None = None,
) -> Lock:
    """The lock at `path`; with `resolve`, unpinned inputs are resolved to pins by pip-compile."""
    path = Path(path)
    lock = parse_lock(path, read_text(path), format_name, root)
    if resolve:
        lock = resolve_lock(lock)
    return lock
