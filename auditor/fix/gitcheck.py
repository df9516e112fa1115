"""Whether `--write` may touch the project: refused where git shows uncommitted changes, so
the rewrite can always be reviewed and undone with git."""

from __future__ import annotations

from pathlib import Path

from auditor.gitrange import GitError, git


def uncommitted(project: Path) -> list[str] | None:
    """The paths under `project` with uncommitted changes (untracked files too); None when the
    project is not inside a git work tree (or git is not installed)."""
    where = project if project.is_dir() else project.parent
    try:
        inside = git(where, "rev-parse", "--is-inside-work-tree", check=False)
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return None
        status = git(where, "status", "--porcelain", "--untracked-files=all", "--", ".")
    except GitError:
        return None
    return [line[3:] for line in status.stdout.splitlines() if line.strip()]
