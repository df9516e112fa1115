"""The files of a project worth scanning: Python sources and notebooks, and every one passed over.

What is read follows the project. In a git work tree it is git's own view: tracked files, and
untracked files that no ignore rule ignores (`git ls-files --cached --others
--exclude-standard`); a tracked file that a `.gitignore` pattern matches is read, as git keeps
it. Elsewhere the folders are walked and the `.gitignore` files read with pathspec. Either way
an environment (a folder holding `pyvenv.cfg` or `conda-meta`, whatever its name), installed
packages (`site-packages`, `dist-packages`, `node_modules`) and Jupyter's autosave copies are
not the project's code, and what `[tool.auditor] exclude` excludes is left out.

Every source passed over is listed with why: such a folder once, an ignored or excluded folder
once, each other file by itself (a symlink loop or one leading out of the project, a broken
symlink, a folder that cannot be listed, a pipe, socket or device named like a source, a tracked
file missing from the work tree). Version control's own folders and caches that never hold
sources are not walked.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from auditor.models import Skipped
from auditor.scan.config import ScanConfig

SUFFIXES = (".py", ".ipynb")
NO_SOURCES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".auditor_cache",
    }
)
INSTALLED = {
    "site-packages": "installed packages (site-packages)",
    "dist-packages": "installed packages (dist-packages)",
    "node_modules": "installed JavaScript packages (node_modules)",
    ".ipynb_checkpoints": "Jupyter's autosave copies (.ipynb_checkpoints)",
}
IGNORED = "ignored by .gitignore"
TOO_BIG = "ignored by .gitignore (too big to search for sources)"
SEARCHED = (
    10_000  # entries of an ignored folder looked at for a source: a data folder can hold millions
)
EXCLUDED = "excluded by [tool.auditor] exclude"
GIT_TIMEOUT = 120  # seconds: listing the biggest monorepo takes a few


def _layout(directory: Path) -> str | None:
    """Why a folder is not the project's own code (an environment, installed packages), or None."""
    if directory.name in INSTALLED:
        return INSTALLED[directory.name]
    if (directory / "pyvenv.cfg").is_file():
        return "a virtual environment (it holds pyvenv.cfg)"
    if (directory / "conda-meta").is_dir():
        return "a conda environment (it holds conda-meta)"
    return None


def _passed_over(directory: Path, relative: str, config: ScanConfig) -> str | None:
    """Why a folder is passed over whole: not the project's code, or excluded; None: it is read."""
    return _layout(directory) or (EXCLUDED if config.excluded(relative, is_dir=True) else None)


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    relatives: list[str] = field(
        default_factory=list
    )  # of each file, from the root ("/"-separated)

    def add(self, path: Path, relative: str) -> None:
        self.files.append(path)
        self.relatives.append(relative)


def discover(root: Path, config: ScanConfig | None = None) -> Discovery:
    """Every .py and .ipynb below root, in a stable order, and what was passed over and why."""
    config = config or ScanConfig()
    found = Discovery()
    if not root.is_dir():
        found.add(root, root.name)
        return found
    real_root = Path(os.path.realpath(root))
    if not (config.respect_gitignore and _from_git(root, "", real_root, config, found)):
        _walk(root, real_root, config, found)
    order = sorted(
        range(len(found.files)), key=lambda i: found.relatives[i].split("/")
    )  # a walk's order
    found.files = [found.files[i] for i in order]
    found.relatives = [found.relatives[i] for i in order]
    found.skipped.sort(key=lambda s: s.path.split("/"))
    return found


def _in_work_tree(directory: Path) -> bool:
    """Whether a `.git` is in `directory` or above it: only then is git asked (a start saved)."""
    return any((folder / ".git").exists() for folder in (directory, *directory.resolve().parents))


def _git(directory: Path, *arguments: str) -> subprocess.Popen[bytes] | None:
    """`git ls-files -z` in `directory` with `arguments`, started; None when git is missing."""
    try:
        return subprocess.Popen(
            ["git", "-c", "core.quotepath=off", "ls-files", "-z", *arguments],
            cwd=directory,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return None


def _listing(process: subprocess.Popen[bytes] | None) -> list[str] | None:
    """What a `_git` listed, or None when it failed (no work tree, a repository git refuses)."""
    if process is None:
        return None
    try:
        out, _ = process.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None
    if process.returncode != 0:
        return None
    return list(
        dict.fromkeys(os.fsdecode(p) for p in out.split(b"\0") if p)
    )  # a conflict lists a file thrice


def _from_git(
    directory: Path, inside: str, real_root: Path, config: ScanConfig, found: Discovery
) -> bool:
    """The sources of the git work tree at `directory` (`inside`: its path from the root, "" for
    the root), into `found`; False when it is no git work tree. Both listings run at once."""
    if not _in_work_tree(directory):
        return False
    ignored = _git(directory, "--others", "--ignored", "--exclude-standard", "--directory")
    listed = _listing(_git(directory, "--cached", "--others", "--exclude-standard"))
    if listed is None:
        _listing(ignored)
        return False
    ignored_names = _listing(ignored) or []
    if not listed and ignored_names == ["./"]:  # a folder git ignores, asked for by name: walked
        return False
    folders = _Folders(directory, config, inside)
    for listed_name in listed:
        name = listed_name.rstrip(
            "/"
        )  # "name/": an untracked repository, which git does not look inside
        relative = f"{inside}/{name}" if inside else name
        if not name.endswith(SUFFIXES):
            path = directory / name
            if listed_name.endswith("/") or "." not in path.name.lstrip("."):  # named like a folder
                if _is_repository(path):  # a submodule, or an untracked repository
                    if folders.passed_over(name, found, is_dir=True) is None and not _from_git(
                        path, relative, real_root, config, found
                    ):
                        _walk(path, real_root, config, found, relative)
                else:
                    _link_like_folder(path, relative, real_root, config, found)
            continue
        if folders.passed_over(name, found) is not None:
            continue
        path = directory / name
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            found.skipped.append(Skipped(relative, "tracked by git but missing from the work tree"))
            continue
        if stat.S_ISREG(mode) or _usable(path, relative, real_root, found):
            found.add(path, relative)
    _ignored_by_git(ignored_names, folders, found)
    return True


def _ignored_by_git(ignored: list[str], folders: _Folders, found: Discovery) -> None:
    """The untracked sources git ignores, listed: a folder once (git names the outermost ignored
    one), a file by itself."""
    for name in ignored:
        if name.endswith("/"):
            name = name.rstrip("/")
            if name.rpartition("/")[2] in NO_SOURCES:
                continue
            if folders.passed_over(name, found, is_dir=True) is None:  # not an environment
                holds = _holds_sources(folders.directory / name)
                if holds is not False:
                    found.skipped.append(
                        Skipped(folders.relative(name), IGNORED if holds else TOO_BIG, "folder")
                    )
        elif name.endswith(SUFFIXES) and folders.passed_over(name, found) is None:
            found.skipped.append(Skipped(folders.relative(name), IGNORED))


class _Folders:
    """Which folders of a listing are passed over whole (environments, installed packages,
    excluded folders), each told once; answers kept per folder."""

    def __init__(self, directory: Path, config: ScanConfig, inside: str):
        self.directory, self.config, self.inside = directory, config, inside
        self.outermost: dict[
            str, str | None
        ] = {}  # folder -> the outermost one passed over, or None

    def passed_over(self, name: str, found: Discovery, is_dir: bool = False) -> str | None:
        """The folder of `name` (a path from `directory`, itself a folder with `is_dir`) passed
        over whole, or the file itself when it is excluded; listed the first time. None: read."""
        folder = self._folder(name if is_dir else name.rpartition("/")[0], found)
        if folder is not None:
            return folder
        if not is_dir and self.config.excluded(self.relative(name)):
            found.skipped.append(Skipped(self.relative(name), EXCLUDED))
            return name
        return None

    def _folder(self, folder: str, found: Discovery) -> str | None:
        """The outermost folder passed over whole from `folder` up, or None; kept per folder."""
        if folder not in self.outermost:
            outer = self._folder(folder.rpartition("/")[0], found) if "/" in folder else None
            if outer is None and folder:
                reason = _passed_over(self.directory / folder, self.relative(folder), self.config)
                if reason is not None:
                    outer = folder
                    found.skipped.append(Skipped(self.relative(folder), reason, "folder"))
            self.outermost[folder] = outer
        return self.outermost[folder]

    def relative(self, name: str) -> str:
        return f"{self.inside}/{name}" if self.inside else name


def _is_repository(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink() and (path / ".git").exists()


def _link_like_folder(
    path: Path, relative: str, real_root: Path, config: ScanConfig, found: Discovery
) -> None:
    """A listed name like a folder's that is no source: git keeps a symlink to a folder as a
    link, so the files it leads to are read where they are, in the project; one that leads out
    of it, loops or is broken (it may have led to a folder) is listed, as the walk lists it."""
    if not os.path.islink(path) or config.excluded(relative):
        return
    dead = _dead_link(path)
    if dead is not None:
        found.skipped.append(Skipped(relative, dead))
        return
    real = Path(os.path.realpath(path))
    if real.is_dir() and real != real_root and real_root not in real.parents:
        found.skipped.append(Skipped(relative, "symlink leads outside the project", "folder"))


def _usable(path: Path, relative: str, real_root: Path, found: Discovery) -> bool:
    """Whether a source found can be read: a regular file, or a link to one inside the project."""
    if os.path.islink(path):
        dead = _dead_link(path)
        if dead is not None:
            found.skipped.append(Skipped(relative, dead))
            return False
        if real_root not in Path(os.path.realpath(path)).parents:
            found.skipped.append(Skipped(relative, "symlink leads outside the project"))
            return False
    if not path.is_file():  # reading a pipe would wait forever, a device forever more
        found.skipped.append(Skipped(relative, "not a regular file (a pipe, socket or device)"))
        return False
    return True


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


def _walk(
    start: Path, real_root: Path, config: ScanConfig, found: Discovery, inside: str = ""
) -> None:
    """The sources below `start` (`inside`: its path from the root), found by walking the
    folders, with the `.gitignore` files read along the way (unless the settings say not to)."""
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    if config.respect_gitignore:
        spec = _gitignore(start)
        if spec is not None:
            specs.append((inside, spec))

    def skip(relative: str, reason: str, is_dir: bool) -> None:
        found.skipped.append(Skipped(relative, reason, "folder" if is_dir else "file"))

    def walk(directory: Path, inside: str, seen: tuple[Path, ...]) -> None:
        """`inside`: the folder's path from the root, "" for the root itself."""
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            skip(inside or ".", f"unreadable folder: {exc.strerror or exc}", True)
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
                    if wanted and not (
                        config.excluded(relative) or _ignored(specs, relative, is_dir=False)
                    ):
                        found.skipped.append(Skipped(relative, dead))
                    continue
            if is_dir:
                if entry.name in NO_SOURCES:
                    continue
                reason = _passed_over(path, relative, config)
                if reason is None and _ignored(specs, relative, is_dir=True):
                    holds = _holds_sources(path)
                    if holds is False:
                        continue
                    reason = IGNORED if holds else TOO_BIG
                if reason is not None:
                    skip(relative, reason, True)
                    continue
                real = Path(os.path.realpath(path))
                if entry.is_symlink():
                    if real in seen:
                        found.skipped.append(
                            Skipped(
                                relative,
                                f"symlink loop: leads back to {_shown(real, real_root)}",
                                "note",
                            )
                        )
                        continue
                    if real != real_root and real_root not in real.parents:
                        skip(relative, "symlink leads outside the project", False)
                        continue
                if config.respect_gitignore:
                    spec = _gitignore(path)
                    if spec is not None:
                        specs.append((relative, spec))
                walk(path, relative, (*seen, real))
                continue
            if not entry.name.endswith(SUFFIXES):
                continue
            if config.excluded(relative):
                skip(relative, EXCLUDED, False)
                continue
            if _ignored(specs, relative, is_dir=False):
                skip(relative, IGNORED, False)
                continue
            if (not link and entry.is_file()) or _usable(path, relative, real_root, found):
                found.add(path, relative)

    walk(start, inside, (real_root,) if not inside else (real_root, Path(os.path.realpath(start))))


def _holds_sources(directory: Path) -> bool | None:
    """Whether an ignored folder holds a source (it is then listed as passed over); None when
    it is too big to tell (`SEARCHED` entries looked at, none a source)."""
    seen = 0
    for _, folders, names in os.walk(directory):
        if any(name.endswith(SUFFIXES) for name in names):
            return True
        seen += len(folders) + len(names)
        if seen > SEARCHED:
            return None
        folders[:] = [f for f in folders if f not in NO_SOURCES]
    return False


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
    return (
        "the project root"
        if real == real_root
        else real.relative_to(real_root).as_posix()
        if real_root in real.parents
        else str(real)
    )
