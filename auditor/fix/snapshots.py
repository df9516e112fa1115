"""Fix snapshots: what `auditor fix --keep-old` and `--adopt-new` write on a change's positive
fixture, kept beside it (`positive.keep_old.py`, `positive.adopt_new.py`) so that a reviewer
reads what a fix does, and a test sees when an edit of the fix, the fixture or the engine
changes it.

The fixture is scanned with the change alone and rewritten as `auditor fix` rewrites a project
file (high-confidence findings; a transform's `requires` is not checked, there being no
transition). A mode that leaves the fixture as it is has no snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from auditor.fix.apply import rewrite_file
from auditor.fix.spec import FIX_MODES
from auditor.knowledge.entry import SpecChange
from auditor.knowledge.folders import POSITIVE, snapshot
from auditor.scan import scan_project


def expected(folder: Path, entry: SpecChange) -> dict[Path, str | None]:
    """Each snapshot of the change in `folder` and the text it holds, or None where there is none
    (no fix, no `positive.py`, or a mode whose fix leaves it as it is)."""
    positive = folder / POSITIVE
    found = {snapshot(folder, mode.replace("-", "_")): None for mode in FIX_MODES}
    if entry.fix is None or not positive.is_file():
        return dict.fromkeys(found)
    findings, _ = scan_project(positive, [entry])
    texts: dict[Path, str | None] = {}
    for path, mode in zip(found, FIX_MODES):
        done = rewrite_file(folder, POSITIVE, findings, {entry.id: entry}, mode)
        texts[path] = done.new_text if done.new_text != done.old_text else None
    return texts


def stale(folder: Path, entry: SpecChange) -> list[str]:
    """The snapshots of the change in `folder` that are missing, out of date or not wanted."""
    problems = []
    for path, text in expected(folder, entry).items():
        kept = path.read_text("utf-8") if path.is_file() else None
        if kept != text:
            problems.append(
                f"{path}: "
                + (
                    "not wanted: the fix leaves positive.py as it is"
                    if text is None
                    else "missing"
                    if kept is None
                    else "out of date"
                )
            )
    return problems


def write_snapshots(changes: Iterable[tuple[Path, SpecChange]]) -> list[Path]:
    """Write (or delete) every snapshot of these changes (folder, entry); the files changed."""
    changed = []
    for folder, entry in changes:
        for path, text in expected(folder, entry).items():
            kept = path.read_text("utf-8") if path.is_file() else None
            if kept == text:
                continue
            if text is None:
                path.unlink()
            else:
                path.write_text(text, "utf-8", newline="")
            changed.append(path)
    return changed
