"""`lock show` and `lock diff` output."""

from __future__ import annotations

from auditor.lockfiles import LockDiff
from auditor.models import Lock
from auditor.report.json import dumps
from auditor.report.serialize import environment, envelope, pin, transition


def show(lock: Lock, fmt: str) -> str:
    if fmt == "json":
        return dumps(envelope(path=lock.path, format=lock.format, packages=[pin(p) for p in lock.pins]))
    lines = [f"{lock.path} ({lock.format}): {len(lock.pins)} packages"]
    for p in lock.pins:
        version = str(p.version) if p.version is not None else f"unpinned {p.specifier or ''}".rstrip()
        extra = f"  ; {p.marker}" if p.marker else ""
        lines.append(f"  {p.name} {version}{extra}")
    return "\n".join(lines) + "\n"


def diff(lock_diff: LockDiff, fmt: str, known: frozenset[str] = frozenset({"torch"})) -> str:
    if fmt == "json":
        return dumps(envelope(
            transitions=[transition(t) for t in lock_diff.packages if t.package in known],
            packages=[transition(t) for t in lock_diff.packages],
            environment=[environment(e) for e in lock_diff.environment],
        ))
    lines = [
        f"{t.package}: {t.old or '(none)'} -> {t.new or '(none)'} ({t.direction})"
        + (f" [{t.environment}]" if t.environment else "")
        for t in lock_diff.packages
    ]
    lines += [f"{e.severity}: {e.message}" for e in lock_diff.environment]
    return "\n".join(lines or ["no package changed"]) + "\n"
