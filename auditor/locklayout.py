"""Where a repository keeps its locks: which files are locks by their name and folder, how sure
each is as a source of pins, and which code each lock governs.

Paths are relative to the repository root, with forward slashes; the root folder is "".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from auditor.lockfiles.conda_lock import CONDA_LOCK
from auditor.lockfiles.detect import FORMATS
from auditor.lockfiles.pdm import PDM
from auditor.lockfiles.pipfile import PIPFILE
from auditor.lockfiles.poetry import POETRY
from auditor.lockfiles.pylock import PYLOCK
from auditor.lockfiles.requirements import REQUIREMENTS
from auditor.lockfiles.uv import UV

# folders that hold requirements files: `requirements/base.txt`, `reqs/prod.txt`, `deps/gpu.in`
REQUIREMENT_FOLDERS = frozenset(
    {"requirements", "requirement", "reqs", "req", "deps", "dependencies", "constraints"}
)
_REQUIREMENT_NAMES = re.compile(
    r"^(deps|dependencies|pins)\.(txt|in)$|^requirements[^/]*\.lock$", re.IGNORECASE
)
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py")
# the files that declare a project's dependencies (format name = file name)
DECLARATIONS = (*PROJECT_MARKERS, "Pipfile")
CODE_SUFFIXES = (".py", ".ipynb")
# suffixes of files that could be a lock under a name no rule knows: read to find out
LOCKISH_SUFFIXES = (".txt", ".in", ".lock", ".toml", ".yml", ".yaml")

LOCK, PINNED_LIST, DECLARED = 0, 1, 2  # the kinds of source, best first
LOCK_FORMATS = frozenset(f.name for f in (UV, POETRY, PDM, PIPFILE, PYLOCK, CONDA_LOCK))


@dataclass(frozen=True, slots=True)
class LockName:
    """What a file's path says: the kind of source it is, and the format to fall back on when no
    format claims its content (None: its content must say)."""

    kind: int
    fallback: str | None = None
    by_content: bool = False  # no rule knows the name: its content was read to tell


def lock_name(path: str) -> LockName | None:
    """The lock a path names by its file name or its folder, or None."""
    pure = PurePosixPath(path)
    if pure.name in DECLARATIONS:
        return LockName(DECLARED)
    score, best = max((fmt.claims(Path(pure.name), ""), -n) for n, fmt in enumerate(FORMATS))
    if score >= 2:  # the surest claim, the earlier format on a tie (as detection decides)
        return LockName(kind_of(FORMATS[-best].name))
    in_folder = pure.suffix in (".txt", ".in") and REQUIREMENT_FOLDERS & {
        p.lower() for p in pure.parts[:-1]
    }
    if in_folder or _REQUIREMENT_NAMES.match(pure.name):
        return LockName(PINNED_LIST, REQUIREMENTS.name)
    return None


def kind_of(format_name: str) -> int:
    """The kind of source a file read as `format_name` is."""
    if format_name in DECLARATIONS:
        return DECLARED
    return LOCK if format_name in LOCK_FORMATS else PINNED_LIST


def _parents(path: str) -> list[str]:
    """The folders holding `path`, nearest first, ending with the root ""."""
    return [p.as_posix() if str(p) != "." else "" for p in PurePosixPath(path).parents]


def _under(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


class Tree:
    """The folders of a tree that hold code (at any depth) and those that hold a project file."""

    def __init__(self, files: Iterable[str]) -> None:
        self.code: set[str] = set()
        self.projects: set[str] = set()
        self.sources: list[str] = []  # the Python files, which may import each other
        for file in files:
            if file.endswith(CODE_SUFFIXES):
                self.code.update(_parents(file))
                self.sources += [file] if file.endswith(".py") else []
            if PurePosixPath(file).name in PROJECT_MARKERS:
                self.projects.add(_parents(file)[0])

    def project_folder(self, lock: str) -> str:
        """The folder of code a lock governs: its own folder when code sits in it (a folder of
        requirements, such as requirements/, stands for the folder holding it); otherwise the
        nearest enclosing project (a folder with pyproject.toml, setup.cfg or setup.py), else
        the repository root."""
        parts = PurePosixPath(_parents(lock)[0]).parts
        while parts and parts[-1].lower() in REQUIREMENT_FOLDERS:
            parts = parts[:-1]
        folder = "/".join(parts)
        if not folder or folder in self.code:
            return folder
        return next((f for f in [folder, *_parents(folder)] if f in self.projects), "")


@dataclass(frozen=True, slots=True)
class Scopes:
    """Each lock of a tree, the folders of code it governs and the packages it names. For a
    package, a file is governed by the locks naming it whose folder is the deepest holding the
    file: a `docs/requirements.txt` of sphinx alone leaves torch to the lock above it."""

    folders: Mapping[str, tuple[str, ...]]
    names: Mapping[str, frozenset[str]]

    @classmethod
    def of(
        cls,
        locks: Mapping[str, frozenset[str]],
        tree: Tree,
        given: Mapping[str, tuple[str, ...]] | None = None,
    ) -> Scopes:
        given = given or {}
        folders = {lock: given.get(lock) or (tree.project_folder(lock),) for lock in sorted(locks)}
        return cls(folders, locks)

    def governing(self, path: str, package: str) -> tuple[str, ...]:
        """The locks that govern the file `path` for `package` (none: no lock naming it holds it)."""
        depth, found = -1, []
        for lock, folders in self.folders.items():
            if package not in self.names.get(lock, ()):
                continue
            for folder in folders:
                if _under(path, folder):
                    deep = len(PurePosixPath(folder).parts) if folder else 0
                    if deep > depth:
                        depth, found = deep, [lock]
                    elif deep == depth and lock not in found:
                        found.append(lock)
        return tuple(found)

    def several(self) -> bool:
        """Whether scoping matters: some lock governs less than the whole repository."""
        return any(folders != ("",) for folders in self.folders.values())

    def describe(self, lock: str) -> str:
        folders = self.folders.get(lock, ("",))
        return ", ".join(f"{f}/" if f else "the repository root" for f in folders)
