"""Lockfiles changed between two commits of a local repository, read with `git show`."""

from __future__ import annotations

import fnmatch
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from auditor.errors import AuditorError, LockfileError
from auditor.lockfiles.detect import FORMATS, detect
from auditor.models import Lock


class GitError(AuditorError):
    """git is missing, the folder is not a repository, or a commit is not there."""


@dataclass(frozen=True, slots=True)
class LockPair:
    path: str  # relative to the repository root, forward slashes
    old: Lock | None  # None: the file is new in head
    new: Lock


def parse_range(text: str) -> tuple[str, str | None]:
    """`BASE..HEAD` -> (BASE, HEAD); `BASE..` or `BASE` -> (BASE, None): the working tree."""
    base, sep, head = text.partition("..")
    head = head.lstrip(".")  # BASE...HEAD: we take the merge base anyway
    if not base or (sep and head.startswith("-")) or base.startswith("-"):
        raise GitError(f"--git: expected BASE..HEAD, got {text!r}")
    return base, head or None


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False,
            encoding="utf-8", errors="replace",
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if check and done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise GitError(f"git {args[0]}: {detail}", repo)
    return done


def root(path: Path) -> Path:
    return Path(git(path, "rev-parse", "--show-toplevel").stdout.strip())


def has_commit(repo: Path, rev: str) -> bool:
    return git(repo, "cat-file", "-e", f"{rev}^{{commit}}", check=False).returncode == 0


def ensure_commit(repo: Path, rev: str) -> None:
    """Fetch a commit a shallow checkout lacks, or say how to get it."""
    if has_commit(repo, rev):
        return
    git(repo, "fetch", "--no-tags", "--quiet", "--depth=1", "origin", rev, check=False)
    if not has_commit(repo, rev):
        raise GitError(
            f"commit {rev} is not in this checkout (use actions/checkout with fetch-depth: 0)", repo
        )


def merge_base(repo: Path, base: str, head: str | None) -> str:
    done = git(repo, "merge-base", base, head or "HEAD", check=False)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else base


def is_lockfile(path: str, patterns: Sequence[str] = ()) -> bool:
    """Matches a pattern given, or, with none, a file name some lock format claims."""
    if patterns:
        name = PurePosixPath(path).name
        return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(name, p) for p in patterns)
    return any(fmt.claims(Path(path), "") >= 2 for fmt in FORMATS)


def changed_files(repo: Path, base: str, head: str | None) -> list[str]:
    """Files added or modified from base to head (or the working tree), repository-relative."""
    args = ["diff", "--name-only", "--no-renames", "--diff-filter=AM", "-z", base]
    if head is not None:
        args.append(head)
    out = git(repo, *args).stdout
    return sorted(p for p in out.split("\0") if p)


def changed_lockfiles(
    repo: Path, base: str, head: str | None, patterns: Sequence[str] = ()
) -> list[str]:
    return [p for p in changed_files(repo, base, head) if is_lockfile(p, patterns)]


def show(repo: Path, rev: str | None, path: str) -> str | None:
    """The file's text at `rev` (None: the working tree), or None when it does not exist there."""
    if rev is None:
        file = repo / path
        return file.read_text("utf-8-sig") if file.is_file() else None
    if git(repo, "cat-file", "-e", f"{rev}:{path}", check=False).returncode != 0:
        return None
    return git(repo, "show", f"{rev}:{path}").stdout


def parse_lock(path: str, text: str, rev: str | None) -> Lock:
    """Parse text read from git; errors name `rev:path` so the user knows which side."""
    label = Path(path)
    try:
        return detect(label, text).parse(label, text)
    except LockfileError as exc:
        where = f"{rev[:12]}:{path}" if rev else path
        raise LockfileError(exc.message, where, exc.line) from exc


def lock_pairs(
    repo: Path, base: str, head: str | None, patterns: Sequence[str] = ()
) -> list[LockPair]:
    """Each changed lockfile, read on both sides of the range."""
    ensure_commit(repo, base)
    if head is not None:
        ensure_commit(repo, head)
    start = merge_base(repo, base, head)
    pairs = []
    for path in changed_lockfiles(repo, start, head, patterns):
        new_text = show(repo, head, path)
        if new_text is None:
            continue
        old_text = show(repo, start, path)
        old = parse_lock(path, old_text, start) if old_text is not None else None
        pairs.append(LockPair(path, old, parse_lock(path, new_text, head)))
    return pairs
