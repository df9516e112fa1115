"""One change's suggested rewrite as a report shows it (`Suggestion`), and the `auditor fix`
command that makes it: what the pipeline hands the renderers."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from auditor.fix.spec import FixMode
from auditor.models import AuditResult


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One change's rewrite in one mode: the diff, how many call sites it rewrites, and how
    many it leaves alone."""

    change: str
    mode: FixMode
    diff: str
    rewritten: int
    left_alone: int
    command: str  # the `auditor fix ... --write` that applies it locally


def fix_command(
    result: AuditResult,
    project: str,
    mode: FixMode,
    locks: tuple[str, str] | None = None,
    action: str = "--write",
) -> str:
    """The command that makes this rewrite (`action="--diff"`: that shows it): with the locks
    when the report compared two, else the transition's versions (`--from/--to`, one package)."""
    flag = f"--{mode} {action}"
    if locks is not None:
        old, new = (shlex.quote(p) for p in locks)
        return f"auditor fix {old} {new} --project {shlex.quote(project)} {flag}"
    moved = [t for t in result.transitions if t.old is not None and t.new is not None]
    if not moved:
        return f"auditor fix OLD_LOCK NEW_LOCK --project {shlex.quote(project)} {flag}"
    found = {result.change(f.change).package for f in result.findings}
    # the package whose call sites are found, first of those: a torchvision-only rewrite is
    # made by `--package torchvision`, not by torch's versions
    t = next((t for t in moved if t.package in found), moved[0])
    package = "" if t.package == "torch" else f" --package {t.package}"
    return f"auditor fix --from {t.old} --to {t.new}{package} {shlex.quote(project)} {flag}"
