"""Both sides of `BASE..HEAD` in a local repository: the lockfiles that changed, each read as of
each commit, and the project as of HEAD.

Each commit is checked out into a temporary folder (through a temporary index: the repository's
own index and working tree are not touched) and read there like any other file, so every check
of `read_lock` (size, NUL bytes, UTF-8, conflict markers, includes) holds for git input too.
Revisions are validated before they reach git and resolved to commit ids once.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path, PurePosixPath

from auditor import tomlread
from auditor.errors import AuditorError, LockfileError
from auditor.lockfiles.detect import detect, read_lock, read_text
from auditor.lockfiles.interface import REVIEWED_FAMILY
from auditor.lockfiles.requirements import included_files
from auditor.locklayout import (
    DECLARATIONS,
    DECLARED,
    LOCKISH_SUFFIXES,
    PINNED_LIST,
    LockName,
    Tree,
    kind_of,
    lock_name,
)
from auditor.models import EnvironmentFinding, Lock


class GitError(AuditorError):
    """git is missing, the folder is not a repository, or a commit is not there."""


@dataclass(frozen=True, slots=True)
class LockPair:
    path: str  # relative to the repository root, forward slashes
    old: Lock | None  # None: the project had no source of these pins in base
    new: Lock
    old_path: str | None = None  # where `old` was read: `path`, or the source it moved from


@dataclass(frozen=True, slots=True)
class RangeReading:
    pairs: tuple[LockPair, ...]
    tree: Path  # the repository as of head (a temporary checkout), or the working tree
    notes: tuple[str, ...]  # what was compared and scanned, what was passed by and why
    environment: tuple[EnvironmentFinding, ...]  # what changed and could not be checked
    locks: dict[
        str, frozenset[str]
    ]  # the locks of head that govern code, and the packages each names
    layout: Tree  # head's folders of code and of projects


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PINNED = re.compile(
    r"^[ \t]*[A-Za-z0-9][A-Za-z0-9._-]*[ \t]*(\[[^\]\n]*\][ \t]*)?===?[ \t]*[0-9]", re.MULTILINE
)
# a changed file of these suffixes that is no lock is named in a note; others go unsaid
_NOTED_SUFFIXES = (".txt", ".in", ".lock")
# the locks made from a pyproject.toml beside them (a conda-lock.yml may come from an environment.yml)
_PYPROJECT_LOCKS = re.compile(
    r"(^|.*/)(uv\.lock|poetry\.lock|pdm\.lock|Pipfile\.lock|pylock\.([^/]+\.)?toml)$"
)
_NAMED = 10  # at most this many of them by name: a PR of test data changes hundreds
_BAD_REV = re.compile(r"[\x00-\x20\x7f:\\]|\.\.|@\{-|^-|^\+")


def check_rev(rev: str, what: str = "revision") -> str:
    """A revision safe to hand to git: no option (`--upload-pack=...`), no refspec (`a:b`), no
    range and no control characters."""
    if not rev or _BAD_REV.search(rev) or len(rev) > 256:
        raise GitError(f"{what}: not a commit or branch name: {rev[:80]!r}")
    return rev


def parse_range(text: str) -> tuple[str, str | None]:
    """`BASE..HEAD` -> (BASE, HEAD); `BASE..` or `BASE` -> (BASE, None): the working tree."""
    base, _, head = text.partition("..")
    head = head.removeprefix(".")  # BASE...HEAD: we take the merge base anyway
    if not base:
        raise GitError(f"--git: expected BASE..HEAD, got {text[:80]!r}")
    return check_rev(base, "--git"), check_rev(head, "--git") if head else None


def git(
    repo: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            check=False,
            encoding="utf-8",
            errors="replace",
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if check and done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise GitError(f"git {args[0]}: {detail}", repo)
    return done


def root(path: Path) -> Path:
    return Path(git(path, "rev-parse", "--show-toplevel").stdout.strip())


def commit_id(repo: Path, rev: str) -> str | None:
    done = git(
        repo,
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        f"{rev}^{{commit}}",
        check=False,
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


def has_commit(repo: Path, rev: str) -> bool:
    return commit_id(repo, check_rev(rev)) is not None


def ensure_commit(repo: Path, rev: str) -> str:
    """The commit id of `rev`, fetched first when a shallow checkout lacks it."""
    found = commit_id(repo, check_rev(rev))
    if found is None:
        git(
            repo,
            "fetch",
            "--no-tags",
            "--quiet",
            "--depth=1",
            "--end-of-options",
            "origin",
            rev,
            check=False,
        )
        found = commit_id(repo, rev)
    if found is None:
        raise GitError(
            f"commit {rev} is not in this checkout (use actions/checkout with fetch-depth: 0)", repo
        )
    return found


def merge_base(repo: Path, base: str, head: str | None) -> str:
    done = git(repo, "merge-base", "--end-of-options", base, head or "HEAD", check=False)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else base


def is_lockfile(path: str, patterns: Sequence[str] = ()) -> bool:
    """Matches a pattern given, or, with none, is a lock by its name or folder (a pyproject.toml
    only declares dependencies: it is read when no lock beside it pins them)."""
    if patterns:
        name = PurePosixPath(path).name
        return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(name, p) for p in patterns)
    found = lock_name(path)
    return found is not None and found.kind != DECLARED


def changed_files(repo: Path, base: str, head: str | None) -> list[str]:
    """Files added, modified (type changes too: a file that became a link), or deleted from base
    to head (or the working tree)."""
    args = ["diff", "--name-only", "--no-renames", "--diff-filter=AMDT", "-z", base]
    if head is not None:
        args.append(head)
    out = git(repo, *args, "--").stdout
    return sorted(p for p in out.split("\0") if p)


def changed_lockfiles(
    repo: Path, base: str, head: str | None, patterns: Sequence[str] = ()
) -> list[str]:
    return [p for p in changed_files(repo, base, head) if is_lockfile(p, patterns)]


def tracked_files(repo: Path, rev: str | None) -> list[str]:
    out = (
        git(repo, "ls-tree", "-r", "--name-only", "-z", rev, "--").stdout
        if rev
        else git(repo, "ls-files", "-z", "--").stdout
    )
    return [p for p in out.split("\0") if p]


SPARE_BYTES = 2**30  # left free on the disk a checkout goes to


def tree_size(repo: Path, rev: str) -> int:
    """The bytes the files of commit `rev` take (`<mode> blob <id> <size>\t<path>` per entry;
    submodules show `-` for a size)."""
    out = git(repo, "ls-tree", "-r", "-l", "-z", "--end-of-options", rev).stdout
    sizes = (entry.partition("\t")[0].rsplit(" ", 1)[-1] for entry in out.split("\0") if entry)
    return sum(int(size) for size in sizes if size.isdigit())


@contextmanager
def checkout(repo: Path, rev: str) -> Iterator[Path]:
    """The tree of commit `rev` in a temporary folder, deleted afterwards."""
    needed = tree_size(repo, rev)
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if needed > free - SPARE_BYTES:
        raise GitError(
            f"checking out {rev[:12]} needs {needed / 2**30:.1f} GB, but the temporary folder has "
            f"{free / 2**30:.1f} GB free",
            repo,
        )
    scratch = Path(tempfile.mkdtemp(prefix="auditor-git-"))
    try:
        tree = scratch / "tree"
        tree.mkdir()
        # a temporary index leaves the repository's own untouched; LFS files stay pointers
        env = {**os.environ, "GIT_INDEX_FILE": str(scratch / "index"), "GIT_LFS_SKIP_SMUDGE": "1"}
        git(repo, "read-tree", "--end-of-options", rev, env=env)
        git(repo, "checkout-index", "--all", "--force", f"--prefix={tree}/", env=env)
        yield tree
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _inside(tree: Path, path: str) -> Path | None:
    """The file `path` of `tree`, or None when it is not there or a link leads out of the tree."""
    file = tree / path
    if not file.is_file():
        return None
    return file if Path(os.path.realpath(file)).is_relative_to(os.path.realpath(tree)) else None


def _closure(tree: Path, path: str) -> set[str]:
    """The repository paths a requirements file reaches through `-r`/`-c`, itself included."""
    seen: set[str] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        file = _inside(tree, current)
        if current in seen or file is None:
            continue
        seen.add(current)
        try:
            text = read_text(file)
        except LockfileError:
            continue  # said when the file itself is read
        for target in included_files(text):
            joined = os.path.normpath(PurePosixPath(current).parent / target)
            if not joined.startswith(("..", "/")):
                todo.append(PurePosixPath(joined).as_posix())
    return seen


@dataclass(frozen=True)
class _Side:
    """One end of the range: its tree on disk, its commit (None: the working tree), its files,
    those of them that are locks by name (or by the patterns given), and the format forced on it."""

    tree: Path
    rev: str | None
    files: frozenset[str]
    locks: dict[str, LockName]
    format: str | None

    @classmethod
    def of(
        cls,
        repo: Path,
        tree: Path,
        rev: str | None,
        patterns: Sequence[str],
        format_name: str | None,
    ) -> _Side:
        files = frozenset(p for p in tracked_files(repo, rev) if not _CONTROL.search(p))
        locks = {}
        for path in sorted(
            files
        ):  # sorted: what is read, and said, comes in the same order every run
            name = lock_name(path)
            if patterns:
                name = (name or LockName(PINNED_LIST)) if is_lockfile(path, patterns) else None
            if name is not None:
                locks[path] = name
        return cls(tree, rev, files, locks, format_name)

    @cached_property
    def layout(self) -> Tree:
        return Tree(self.files)

    def link_target(self, path: str) -> str | None:
        """The repository path a link at `path` leads to, when it is a link inside the tree."""
        if not (self.tree / path).is_symlink() or _inside(self.tree, path) is None:
            return None
        return (
            Path(os.path.realpath(self.tree / path))
            .relative_to(os.path.realpath(self.tree))
            .as_posix()
        )


class _Reader:
    """Locks read from either side, each once. A file its format's own name makes a lock is an
    error when it does not parse; one made a lock by its folder or a looser name is passed by
    with a medium finding, one made a lock by its content with a note."""

    def __init__(self, resolve: bool, notes: list[str], findings: list[EnvironmentFinding]) -> None:
        self.resolve = resolve
        self.notes = notes
        self.findings = findings
        self.read: dict[tuple[Path, str], Lock | None] = {}

    def __call__(self, side: _Side, path: str, name: LockName, quiet: bool = False) -> Lock | None:
        """`quiet`: a file read only to look for pins says nothing when it does not read."""
        key = (side.tree, path)
        if key in self.read:
            return self.read[key]
        lock = self._parse(side, path, name, quiet)
        if lock is not None or not quiet:
            self.read[key] = lock
        return lock

    def _parse(self, side: _Side, path: str, name: LockName, quiet: bool) -> Lock | None:
        file = _inside(side.tree, path)
        if file is None:
            return None
        format_name = side.format
        try:
            if format_name is None and name.fallback is not None:
                format_name = _detected(file) or name.fallback
            return read_lock(file, format_name, self.resolve, root=side.tree)
        except LockfileError as exc:  # the file or one it includes
            if name.kind == DECLARED and file.name in _UNREAD_DECLARATIONS and side.format is None:
                if not quiet:  # its torch lines are checked apart (`_unread_declarations`)
                    self.notes.append(
                        f"{path}: not read ({_label(side)}): {exc.message}"
                        + (f" (line {exc.line})" if exc.line else "")
                    )
                return None
            if (name.fallback or name.by_content) and side.format is None:
                if quiet:
                    return None
                said = f"{path}: not read as a lock ({_label(side)}): {exc.message}"
                self.notes.append(said)
                if name.fallback:  # its folder or name says it is one: what it pins is not checked
                    self.findings.append(EnvironmentFinding("lock-not-read", "medium", said))
                return None
            where, top = Path(os.path.realpath(exc.path or file)), os.path.realpath(side.tree)
            if where.is_relative_to(top):
                relative = where.relative_to(top).as_posix()
                exc = LockfileError(
                    exc.message, f"{side.rev[:12]}:{relative}" if side.rev else relative, exc.line
                )
            raise exc from exc.__cause__


def _detected(file: Path) -> str | None:
    """The format the file's content shows, if any."""
    try:
        return detect(file, read_text(file)).name
    except LockfileError:
        return None


def _by_content(side: _Side, path: str) -> LockName | None:
    """A file no rule names, made a lock by a format that claims its content. A list of names
    (`version.txt` holding `0.6.2`, a word list) is one only when it pins a version."""
    if (
        PurePosixPath(path).suffix not in LOCKISH_SUFFIXES
        or (file := _inside(side.tree, path)) is None
    ):
        return None
    found = _detected(file)
    if found is None or (kind_of(found) == PINNED_LIST and not _PINNED.search(read_text(file))):
        return None
    return LockName(kind_of(found), by_content=True)


def _candidates(
    repo: Path,
    start: str,
    base: _Side,
    head: _Side,
    patterns: Sequence[str],
    notes: list[str],
    findings: list[EnvironmentFinding],
) -> dict[str, LockName]:
    """The locks to compare: changed ones (by name, folder or content); requirements files whose
    includes changed; links whose target changed; changed pyproject.toml files that no lock
    beside them pins. A changed file that might have been a lock and is not is named in a note,
    and one that declares dependencies no reader understands is a finding when they moved."""
    changed = changed_files(repo, start, head.rev)
    odd = [p for p in changed if _CONTROL.search(p)]
    if odd:  # a name such as "requirements-\n::error::x\n.txt" would write workflow commands
        notes.append(f"{len(odd)} changed file(s) with control characters in their names, not read")
        changed = [p for p in changed if p not in odd]
    chosen = _changed_locks(changed, base, head, patterns, notes)
    if not patterns:  # patterns given: they alone say which files are read
        chosen = _without_compiled_inputs(chosen, head, notes)
        unread = _unread_declarations(changed, base, head)
        findings += unread
        notes += [f.message for f in unread]
    every = {**base.locks, **head.locks}
    chosen |= _through_includes(every, chosen, set(changed), base, head, notes)
    chosen |= _through_links(every, chosen, set(changed), base, head, notes)
    if not patterns:
        chosen |= _pyprojects(changed, head, notes)
    return dict(sorted(chosen.items()))


def _changed_locks(
    changed: Sequence[str], base: _Side, head: _Side, patterns: Sequence[str], notes: list[str]
) -> dict[str, LockName]:
    """The changed files that are locks by name or folder (or the patterns), or by content."""
    chosen: dict[str, LockName] = {}
    passed = []
    for path in changed:
        name = head.locks.get(path) or base.locks.get(path)
        if name is None and not patterns:
            name = _by_content(head if path in head.files else base, path)
            notes += [f"{path}: read as a lock by its content"] if name is not None else []
        if name is None:
            passed += [path] if PurePosixPath(path).suffix in _NOTED_SUFFIXES else []
        elif name.kind != DECLARED or patterns:
            chosen[path] = name
    if passed:
        more = f" and {len(passed) - _NAMED} more" if len(passed) > _NAMED else ""
        notes.append(
            "Changed, and not lockfiles by name or content (not read): "
            + ", ".join(passed[:_NAMED])
            + more
        )
    return chosen


def _compiled_output(path: str, head: _Side) -> str | None:
    """The pip-compile output (`base.txt`) beside an input (`base.in`): it pins what the input
    asks for, as a lock does a pyproject.toml's dependencies, so the input is not compared."""
    output = path.removesuffix(".in") + ".txt"
    return output if path.endswith(".in") and output in head.locks else None


def _without_compiled_inputs(
    chosen: dict[str, LockName], head: _Side, notes: list[str]
) -> dict[str, LockName]:
    kept = {}
    for path, name in chosen.items():
        output = _compiled_output(path, head)
        if output is None:
            kept[path] = name
        else:
            notes.append(f"{path}: not compared, {output} beside it pins its dependencies")
    return kept


def _through_includes(
    every: dict[str, LockName],
    chosen: dict[str, LockName],
    changed: set[str],
    base: _Side,
    head: _Side,
    notes: list[str],
) -> dict[str, LockName]:
    """The requirements files of either side that include (`-r`, `-c`) a file that changed."""
    found = {}
    for path, name in sorted(every.items()):
        if (
            path in chosen
            or name.kind != PINNED_LIST
            or not path.endswith((".txt", ".in", ".lock"))
        ):
            continue
        if _compiled_output(path, head) is not None:
            continue
        touched = (_closure(head.tree, path) | _closure(base.tree, path)) & changed - {path}
        if touched:
            found[path] = name
            notes.append(
                f"{path}: read on both sides, as {', '.join(sorted(touched))} that it includes changed"
            )
    return found


def _through_links(
    every: dict[str, LockName],
    chosen: dict[str, LockName],
    changed: set[str],
    base: _Side,
    head: _Side,
    notes: list[str],
) -> dict[str, LockName]:
    """The locks that are links to a file that changed; the target itself is then read once,
    under the link's name (it leaves `chosen`)."""
    found = {}
    for path, name in sorted(every.items()):
        targets = {
            t for side in (base, head) if (t := side.link_target(path)) is not None
        } & changed
        if path not in chosen and targets:
            found[path] = name
            notes.append(
                f"{path}: read through its link to {', '.join(sorted(targets))}, which changed"
            )
            for target in targets:
                chosen.pop(target, None)
    return found


def _pyprojects(changed: Sequence[str], head: _Side, notes: list[str]) -> dict[str, LockName]:
    """The changed pyproject.toml, setup.py and setup.cfg files that no lock beside them pins."""
    found = {}
    for path in changed:
        if PurePosixPath(path).name not in DECLARATIONS:
            continue
        folder = _folder(path)
        pinned_by = next(
            (p for p in sorted(head.locks) if _folder(p) == folder and _PYPROJECT_LOCKS.match(p)),
            None,
        )
        if pinned_by is not None:
            notes.append(f"{path}: not compared, {pinned_by} beside it pins its dependencies")
        else:
            found[path] = LockName(DECLARED)
    return found


# files that declare dependencies where the reader may not understand them: a setup.py or
# setup.cfg whose requirements are computed (`open("requirements.txt")`, `file:`), a Pipfile
# that does not parse
_UNREAD_DECLARATIONS = ("Pipfile", "setup.py", "setup.cfg")
_FAMILY_NAME = re.compile(
    r"(?<![\w.-])(" + "|".join(REVIEWED_FAMILY) + r"|pytorch)(?![\w-])", re.IGNORECASE
)


def _unread_declarations(
    changed: Sequence[str], base: _Side, head: _Side
) -> list[EnvironmentFinding]:
    """A changed Pipfile, setup.py or setup.cfg that does not read, whose lines naming a
    torch-family package changed: what it asks for is not read, so the change is not checked (a
    medium finding)."""
    findings = []
    for path in changed:
        if PurePosixPath(path).name not in _UNREAD_DECLARATIONS:
            continue
        sides, read = [], []
        for side in (base, head):
            file = _inside(side.tree, path)
            try:
                text = read_text(file) if file is not None else ""
            except LockfileError:
                text = ""
            read.append(file is None or _reads(file))
            sides.append({line.strip() for line in text.splitlines() if _FAMILY_NAME.search(line)})
        if all(read):
            continue
        if sides[0] != sides[1]:
            message = (
                f"{path}: lines naming a torch-family package changed, and auditor does not read "
                f"{PurePosixPath(path).name}: the change is not checked"
            )
            findings.append(EnvironmentFinding("dependencies-not-read", "medium", message))
    return findings


def _reads(file: Path) -> bool:
    """Whether a reader here reads the declaration."""
    try:
        read_lock(file)
    except LockfileError:
        return False
    return True


def _folder(path: str) -> str:
    parent = PurePosixPath(path).parent.as_posix()
    return "" if parent == "." else parent


def _family(lock: Lock | None) -> set[str]:
    return {p.name for p in lock.pins if p.name in REVIEWED_FAMILY} if lock is not None else set()


def _best(
    side: _Side, project: str, names: set[str], read: _Reader, notes: list[str]
) -> tuple[str, Lock] | None:
    """The best source of pins for `names` that `side` has in the folder of code `project`: a
    lock before a list of pins before a pyproject.toml, a version pinned before one asked for."""
    ranked = []
    for path, name in side.locks.items():
        if side.layout.project_folder(path) != project:
            continue
        try:
            lock = read(side, path, name, quiet=True)
        except LockfileError as exc:
            notes.append(f"{exc}: not read as the other side of a moved lock")
            continue
        listed = [p for p in lock.pins if p.name in names] if lock is not None else []
        if lock is not None and listed:
            ranked.append((all(p.version is None for p in listed), name.kind, path, lock))
    if not ranked:
        return None
    _, _, path, lock = min(ranked, key=lambda r: r[:3])
    return path, lock


_DEPENDENCY_TABLES = (
    ("project", "dependencies"),
    ("project", "optional-dependencies"),
    ("dependency-groups",),
    ("tool", "poetry", "dependencies"),
    ("tool", "poetry", "dev-dependencies"),
    ("tool", "poetry", "group"),
    ("tool", "pdm", "dev-dependencies"),
    ("tool", "uv", "dev-dependencies"),
    ("tool", "uv", "constraint-dependencies"),
    ("tool", "uv", "override-dependencies"),
)


def _dependency_tables(side: _Side, path: str) -> dict[str, object]:
    """Every table of a pyproject.toml that can declare dependencies, as written (a setup.py or
    setup.cfg: none beyond what its reader reads)."""
    file = _inside(side.tree, path)
    if file is None or file.name != "pyproject.toml":
        return {}
    document: object = tomlread.loads(read_text(file), file, LockfileError)
    found: dict[str, object] = {}
    for keys in _DEPENDENCY_TABLES:
        value = document
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            found["[" + ".".join(keys) + "]"] = value
    return found


def _pairs(
    chosen: dict[str, LockName],
    base: _Side,
    head: _Side,
    read: _Reader,
    notes: list[str],
    findings: list[EnvironmentFinding],
) -> list[LockPair]:
    """Each chosen lock with its other side. A lock new in head is compared with the best source
    the same project had in base when it pins what the base file did not (pyproject.toml pins
    -> uv.lock is a move, not an addition); a deleted lock is said, unless it was that source."""
    pairs: dict[tuple[str | None, str], LockPair] = {}
    deleted = []
    for path, name in chosen.items():
        new = read(head, path, name) if path in head.files else None
        old = read(base, path, name) if path in base.files else None
        old_path: str | None = path if old is not None else None
        if new is None:
            if (head.tree / path).is_symlink():
                notes.append(f"{path}: a link out of the repository, not read")
            elif not (head.tree / path).exists():
                deleted.append(path)
            continue  # otherwise it did not read, as a note says
        if old is None and path in base.files and (base.tree / path).is_symlink():
            notes.append(f"{path}: a link out of the repository in {_label(base)}, not read there")
        missing = _family(new) - _family(old)
        if name.kind == DECLARED and not any(p.version for p in new.pins if p.name in missing):
            missing = (
                set()
            )  # a declaration that asks for ranges moves no pin: not paired with a lock
        if missing and (
            found := _best(base, head.layout.project_folder(path), missing, read, notes)
        ):
            old_path, old = found
        if old_path is not None and old_path != path:
            notes.append(
                f"{path}: compared with {old_path} of {_label(base)}, the source of its pins there"
            )
        if old is not None and old_path == path and name.kind == DECLARED and _same_pins(old, new):
            tables = _dependency_tables(base, path), _dependency_tables(head, path)
            moved = sorted(
                k
                for k in tables[0].keys() | tables[1].keys()
                if tables[0].get(k) != tables[1].get(k)
            )
            if not moved:
                notes.append(f"{path}: changed, but not its dependencies")
                continue
            message = (
                f"{path}: {', '.join(moved)} changed, but none of the pins auditor reads from it did: "
                f"the change is not checked"
            )
            findings.append(EnvironmentFinding("dependencies-not-read", "medium", message))
            notes.append(message)
            continue
        pairs[(old_path, path)] = LockPair(path, old, new, old_path)
    moved_from = {old for old, _ in pairs}
    notes += [f"{path}: deleted, not compared" for path in deleted if path not in moved_from]
    return list(pairs.values())


def _label(side: _Side) -> str:
    return side.rev[:12] if side.rev else "the working tree"


def _scope_locks(head: _Side, pairs: Sequence[LockPair]) -> dict[str, frozenset[str]]:
    """The locks of head that govern code, each with the packages it names: every lock, list of
    pins and pyproject.toml that reads and names a package (read quietly: one that does not
    read governs nothing, and what it should have said is said where it is compared)."""
    names = {}
    for path, name in head.locks.items():
        file = _inside(head.tree, path)
        with suppress(LockfileError):
            if file is not None:
                format_name = head.format or (
                    _detected(file) or name.fallback if name.fallback else None
                )
                names[path] = frozenset(
                    p.name for p in read_lock(file, format_name, root=head.tree).pins
                )
    names |= {p.path: frozenset(pin.name for pin in p.new.pins) for p in pairs}
    return {path: named for path, named in sorted(names.items()) if named}


@contextmanager
def read_range(
    repo: Path,
    base: str,
    head: str | None,
    patterns: Sequence[str] = (),
    old_format: str | None = None,
    new_format: str | None = None,
    resolve: bool = False,
) -> Iterator[RangeReading]:
    """Each changed lockfile, read on both sides of the range; the head's tree stays on disk
    until the block ends, for the scan."""
    base_id = ensure_commit(repo, base)
    head_id = ensure_commit(repo, head) if head is not None else None
    start = merge_base(repo, base_id, head_id)
    span = f"{start[:12]}..{head_id[:12] if head_id else 'the working tree'}"
    with checkout(repo, start) as base_tree, _head_tree(repo, head_id) as head_tree:
        notes: list[str] = []
        findings: list[EnvironmentFinding] = []
        old_side = _Side.of(repo, base_tree, start, patterns, old_format)
        new_side = _Side.of(repo, head_tree, head_id, patterns, new_format)
        read = _Reader(resolve, notes, findings)
        chosen = _candidates(repo, start, old_side, new_side, patterns, notes, findings)
        pairs = _pairs(chosen, old_side, new_side, read, notes, findings)
        compared = ", ".join(p.path for p in pairs)
        notes.insert(
            0,
            f"Lockfiles compared in {span}: {compared}"
            if pairs
            else f"No lockfile changed in {span}",
        )
        notes.append(
            f"Lockfiles and project read as of commit {head_id[:12]} (a temporary checkout)"
            if head_id is not None
            else "Lockfiles and project read from the working tree"
        )
        yield RangeReading(
            tuple(pairs),
            head_tree,
            tuple(dict.fromkeys(notes)),
            tuple(findings),
            _scope_locks(new_side, pairs),
            new_side.layout,
        )


def _same_pins(old: Lock, new: Lock) -> bool:
    return {replace(p, line=None) for p in old.pins} == {replace(p, line=None) for p in new.pins}


@contextmanager
def _head_tree(repo: Path, head: str | None) -> Iterator[Path]:
    if head is None:
        yield repo
    else:
        with checkout(repo, head) as tree:
            yield tree
