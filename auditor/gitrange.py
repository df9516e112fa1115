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
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from auditor.errors import AuditorError, LockfileError
from auditor.lockfiles.detect import FORMATS, read_lock, read_text
from auditor.lockfiles.requirements import REQUIREMENTS, included_files
from auditor.models import Lock

# a lock beside a pyproject.toml pins its dependencies: the pyproject is then not compared
_LOCKS_OF_PYPROJECT = ("uv.lock", "poetry.lock", "pdm.lock", "pylock.toml", "Pipfile.lock")


class GitError(AuditorError):
    """git is missing, the folder is not a repository, or a commit is not there."""


@dataclass(frozen=True, slots=True)
class LockPair:
    path: str  # relative to the repository root, forward slashes
    old: Lock | None  # None: the file is new in head
    new: Lock


@dataclass(frozen=True, slots=True)
class RangeReading:
    pairs: tuple[LockPair, ...]
    tree: Path  # the repository as of head (a temporary checkout), or the working tree
    notes: tuple[str, ...]  # what was compared and scanned, what was passed by and why


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
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
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False,
            encoding="utf-8", errors="replace", env=env, stdin=subprocess.DEVNULL,
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
    done = git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
    return done.stdout.strip() or None if done.returncode == 0 else None


def has_commit(repo: Path, rev: str) -> bool:
    return commit_id(repo, check_rev(rev)) is not None


def ensure_commit(repo: Path, rev: str) -> str:
    """The commit id of `rev`, fetched first when a shallow checkout lacks it."""
    found = commit_id(repo, check_rev(rev))
    if found is None:
        git(repo, "fetch", "--no-tags", "--quiet", "--depth=1", "--end-of-options", "origin", rev, check=False)
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
    """Matches a pattern given, or, with none, a file name some lock format claims."""
    if patterns:
        name = PurePosixPath(path).name
        return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(name, p) for p in patterns)
    return any(fmt.claims(Path(path), "") >= 2 for fmt in FORMATS)


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
    out = git(repo, "ls-tree", "-r", "--name-only", "-z", rev, "--").stdout if rev else git(
        repo, "ls-files", "-z", "--"
    ).stdout
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
            f"{free / 2**30:.1f} GB free", repo,
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


def _read(
    tree: Path, path: str, rev: str | None, format_name: str | None, resolve: bool
) -> Lock | None:
    """The lock `path` as of `rev`; errors name `rev:path` so the user knows which side."""
    file = _inside(tree, path)
    if file is None:
        return None
    try:
        return read_lock(file, format_name, resolve, root=tree)
    except LockfileError as exc:  # the file or one it includes
        where, top = Path(os.path.realpath(exc.path or file)), os.path.realpath(tree)
        if where.is_relative_to(top):
            relative = where.relative_to(top).as_posix()
            exc = LockfileError(exc.message, f"{rev[:12]}:{relative}" if rev else relative, exc.line)
        raise exc from exc.__cause__


@dataclass(frozen=True, slots=True)
class _Sides:
    base: Path
    head: Path
    start: str
    head_rev: str | None


def _candidates(
    repo: Path, sides: _Sides, patterns: Sequence[str], notes: list[str]
) -> list[str]:
    """Changed lockfiles; requirements files whose includes changed; changed pyproject.toml
    files that no lock beside them pins."""
    changed = changed_files(repo, sides.start, sides.head_rev)
    odd = [p for p in changed if _CONTROL.search(p)]
    if odd:  # a name such as "requirements-\n::error::x\n.txt" would write workflow commands
        notes.append(f"{len(odd)} changed file(s) with control characters in their names, not read")
        changed = [p for p in changed if p not in odd]
    chosen = [p for p in changed if is_lockfile(p, patterns)]
    head_files = tracked_files(repo, sides.head_rev)
    base_files = tracked_files(repo, sides.start)
    changed_set = set(changed)
    for path in sorted(set(head_files) | set(base_files)):
        if _CONTROL.search(path) or REQUIREMENTS.claims(Path(path), "") < 2 or path in chosen or not is_lockfile(path, patterns):
            continue
        reached = _closure(sides.head, path) | _closure(sides.base, path)
        if reached & changed_set:
            chosen.append(path)
            touched = ", ".join(sorted(reached & changed_set - {path}))
            notes.append(f"{path}: read on both sides, as {touched} that it includes changed")
    for path in changed:
        if patterns or PurePosixPath(path).name != "pyproject.toml" or path in chosen:
            continue  # patterns given: they alone say which files are read
        folder = PurePosixPath(path).parent
        beside = [str(folder / name) if str(folder) != "." else name for name in _LOCKS_OF_PYPROJECT]
        pinned_by = next((b for b in beside if b in head_files), None)
        if pinned_by is not None:
            notes.append(f"{path}: not compared, {pinned_by} beside it pins its dependencies")
        else:
            chosen.append(path)
    return sorted(chosen)


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
        sides = _Sides(base_tree, head_tree, start, head_id)
        pairs = []
        for path in _candidates(repo, sides, patterns, notes):
            new = _read(head_tree, path, head_id, new_format, resolve)
            if new is None:
                linked = (head_tree / path).is_symlink()
                notes.append(f"{path}: " + ("a link out of the repository, not read" if linked else "deleted, not compared"))
                continue
            old = _read(base_tree, path, start, old_format, resolve)
            if old is None and (base_tree / path).is_symlink():
                notes.append(f"{path}: a link out of the repository in {start[:12]}, not read there")
            if old is not None and path.endswith("pyproject.toml") and _same_pins(old, new):
                notes.append(f"{path}: changed, but not its dependencies")
                continue
            pairs.append(LockPair(path, old, new))
        compared = ", ".join(p.path for p in pairs)
        notes.insert(0, f"Lockfiles compared in {span}: {compared}" if pairs else f"No lockfile changed in {span}")
        notes.append(
            f"Lockfiles and project read as of commit {head_id[:12]} (a temporary checkout)"
            if head_id is not None else "Lockfiles and project read from the working tree"
        )
        yield RangeReading(tuple(pairs), head_tree, tuple(notes))


def _same_pins(old: Lock, new: Lock) -> bool:
    return {replace(p, line=None) for p in old.pins} == {replace(p, line=None) for p in new.pins}


@contextmanager
def _head_tree(repo: Path, head: str | None) -> Iterator[Path]:
    if head is None:
        yield repo
    else:
        with checkout(repo, head) as tree:
            yield tree
