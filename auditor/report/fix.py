"""`auditor fix` in text (the diff or the files written, then every finding left alone with
its reason) and in JSON (docs/contract-additions.md)."""

from __future__ import annotations

from typing import Any

from auditor.fix.diff import unified_diff
from auditor.fix.model import Applied, FixResult, LeftAlone
from auditor.models import Finding
from auditor.report.json import dumps
from auditor.report.serialize import finding as finding_json
from auditor.report.serialize import transition


def _where(f: Finding) -> str:
    cell = f"[cell {f.cell}]" if f.cell is not None else ""
    return f"{f.path}{cell}:{f.line}:{f.column}"


def render_text(result: FixResult, written: list[str] | None = None) -> str:
    """The diff (or, once written, the files written), a summary line, and the findings left alone."""
    parts = []
    if written is None:
        parts.append(unified_diff(result))
    else:
        parts += [f"wrote {path}\n" for path in written]
    applied, left = result.applied, result.left_alone
    files = len(result.changed)
    verb = "rewrote" if written is not None else "would rewrite"
    parts.append(
        f"{verb} {len(applied)} call site(s) in {files} file(s) with --{result.mode}; "
        f"{len(left)} left alone (--min-confidence {result.min_confidence})\n"
    )
    for item in left:
        f = item.finding
        parts.append(f"  {_where(f)}  {f.change}  {f.symbol}: {item.reason}\n")
    parts += [f"note: {note}\n" for note in [*result.audit.notes, *result.notes]]
    parts += [f"note: {s.path} was not scanned: {s.reason}\n" for s in result.audit.skipped]
    return "".join(parts)


def _applied(a: Applied) -> dict[str, Any]:
    t = a.transform
    return {**finding_json(a.finding), "action": t.action, "on": t.on, "note": t.note,
            "requires": str(t.requires) if t.requires is not None else None}


def _left(x: LeftAlone) -> dict[str, Any]:
    return {**finding_json(x.finding), "kind": x.kind, "reason": x.reason}


def document(result: FixResult, written: list[str] | None = None) -> dict[str, Any]:
    return {
        "mode": result.mode,
        "min_confidence": result.min_confidence,
        "transitions": [transition(t) for t in result.audit.transitions],
        "applied": [_applied(a) for a in result.applied],
        "left_alone": [_left(x) for x in result.left_alone],
        "files": [{"path": f.path, "changed": f.changed, "cells": [c for c, _, _ in f.cells]} for f in result.files],
        "diff": unified_diff(result),
        "written": written or [],
        "notes": [*result.audit.notes, *result.notes],
        "skipped": [{"path": s.path, "reason": s.reason} for s in result.audit.skipped],
    }


def render_json(result: FixResult, written: list[str] | None = None) -> str:
    return dumps(document(result, written))
