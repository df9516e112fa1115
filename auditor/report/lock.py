"""`lock show` and `lock diff` output."""

from __future__ import annotations

from typing import Any

from auditor import __version__
from auditor.lockfiles import LockDiff
from auditor.lockfiles.changes import PackageChange
from auditor.models import Lock, Pin
from auditor.report.json import dumps
from auditor.report.serialize import envelope, environment, pin, transition


def unpinned(lock: Lock) -> list[Pin]:
    """Pins that name no version. `===legacy` pins a version PEP 440 cannot parse: still a pin."""
    return [p for p in lock.unpinned() if not (p.specifier or "").startswith("===")]


def _pin(p: Pin) -> dict[str, Any]:
    return {
        **pin(p),
        "name": p.name or None,  # a local folder the input does not name
        "local": p.local,
        "platform": p.platform,
        "build": p.build,
        "specifier": p.specifier,
        "line": p.line,
    }


def _change(change: PackageChange) -> dict[str, Any]:
    old, new = change.old, change.new
    return {
        **transition(change.transition),
        "package": change.transition.package or None,
        "local": any(p.local for p in (old, new) if p),
        "changes": list(change.kinds),
        "source": {"from": old.source if old else None, "to": new.source if new else None},
        "build": {"from": old.build if old else None, "to": new.build if new else None},
    }


def _version(p: Pin) -> str:
    if p.local:
        mark = "(local, editable)" if "editable" in p.groups else "(local)"
        return f"{p.version} {mark}" if p.version is not None else mark
    if p.version is not None:
        return str(p.version)
    if (p.specifier or "").startswith("==="):
        return p.specifier[3:]  # type: ignore[index]
    return f"unpinned {p.specifier or ''}".rstrip()


def _name(p: Pin) -> str:
    """A pin's name, or for a local folder the input does not name, its path."""
    return p.name or p.source or ""


def _pin_line(p: Pin) -> str:
    text = f"  {_name(p)} {_version(p)}"
    if p.build:
        text += f" ({p.build})"
    if p.platform:
        text += f" [{p.platform}]"
    if p.marker:
        text += f"  ; {p.marker}"
    if p.source and p.name:
        text += f"  from {p.source}"
    return text


def not_a_lock(lock: Lock) -> str | None:
    missing = unpinned(lock)
    if not missing:
        return None
    names = ", ".join(f"{p.name} ({p.specifier})" if p.specifier else p.name for p in missing)
    return (
        f"{lock.path} is not a lock: {len(missing)} package(s) unpinned: {names}; "
        f"pass --resolve to resolve them with pip-compile"
    )


def show(lock: Lock, fmt: str) -> str:
    if fmt == "json":
        return dumps(
            envelope(
                path=lock.path,
                format=lock.format,
                python=lock.python,
                notes=list(lock.notes),
                packages=[_pin(p) for p in lock.pins],
                unpinned=[p.name for p in unpinned(lock)],
            )
        )
    lines = [f"{lock.path} ({lock.format}): {len(lock.pins)} packages"]
    lines += [_pin_line(p) for p in lock.pins]
    lines += [f"note: {note}" for note in lock.notes]
    warning = not_a_lock(lock)
    if warning:
        lines.append(f"warning: {warning}")
    return "\n".join(lines) + "\n"


def _change_line(change: PackageChange) -> str:
    t = change.transition
    before = _version(change.old) if change.old else "(none)"
    after = _version(change.new) if change.new else "(none)"
    anchor = change.new or change.old
    name = t.package or (_name(anchor) if anchor else "")
    text = f"{name}: {before} -> {after} ({', '.join(change.kinds)})"
    if "build" in change.kinds and change.old and change.new:
        text += f" build {change.old.build} -> {change.new.build}"
    if "source" in change.kinds and change.old and change.new:
        text += f" source {change.old.source or 'default index'} -> {change.new.source or 'default index'}"
    return text + (f" [{t.variant}]" if t.variant else "")


def diff(
    lock_diff: LockDiff,
    fmt: str,
    known: frozenset[str] = frozenset({"torch"}),
    old: Lock | None = None,
    new: Lock | None = None,
) -> str:
    if fmt == "json":
        locks = {
            side: {"path": lock.path, "format": lock.format, "notes": list(lock.notes)}
            for side, lock in (("old", old), ("new", new))
            if lock is not None
        }
        return dumps(
            envelope(
                tool={"name": "auditor", "version": __version__},
                transitions=[transition(t) for t in lock_diff.packages if t.package in known],
                packages=[_change(c) for c in lock_diff.changes]
                or [transition(t) for t in lock_diff.packages],
                environment=[environment(e) for e in lock_diff.environment],
                **locks,
            )
        )
    lines = [_change_line(c) for c in lock_diff.changes] or ["no package changed"]
    lines += [
        f"{e.severity}: "
        + ((f"{e.path}:{e.line}: " if e.line else f"{e.path}: ") if e.path else "")
        + e.message
        for e in lock_diff.environment
    ]
    lines += [f"note: {note}" for lock in (old, new) if lock is not None for note in lock.notes]
    return "\n".join(lines) + "\n"
