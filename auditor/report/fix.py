"""`auditor fix` in text (the diff or the files written, then every finding left alone with
its reason) and in JSON (docs/json.md)."""

from __future__ import annotations

from typing import Any

from auditor.fix.diff import unified_diff
from auditor.fix.model import Applied, FixResult, LeftAlone
from auditor.models import AuditResult, Finding, ProbeRun
from auditor.report.json import dumps
from auditor.report.probe import shape_lines
from auditor.report.serialize import finding as finding_json
from auditor.report.serialize import fix_check, transition


def _where(f: Finding) -> str:
    cell = f"[cell {f.cell}]" if f.cell is not None else ""
    return f"{f.path}{cell}:{f.line}:{f.column}"


def render_text(result: FixResult, written: list[str] | None = None) -> str:
    """The diff (or, once written, the files written), a summary line, and the findings left alone."""
    parts = [_proofs(result)]
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


def _proofs(result: FixResult) -> str:
    """The header of the diff: which rewritten lines were run on both versions, and what showed."""
    proven = [p for p in result.proofs if p.status == "proven"]
    lines = []
    if proven:
        first = proven[0]
        what = (
            "the rewrite on {new} prints what the original printed on {old}"
            if result.mode == "keep-old"
            else "the rewrite prints the same on {old} and {new}"
        ).format(old=first.old.version, new=first.new.version)
        lines.append(f"proven ({what}): " + ", ".join(_where(p.finding) for p in proven) + "\n")
    for c in result.checks:
        label = "NOT PROVEN" if c.check.status == "failed" else "fix"
        lines.append(f"{label} {c.change}: {c.check.summary()}\n")
        lines += [f"{line}\n" for line in shape_lines(c.check, "  ")]
    for p in result.proofs:
        if p.status == "differs":
            lines.append(
                f"NOT PROVEN {_where(p.finding)}: {p.old.version} printed {p.old.output.strip()!r}, "
                f"the rewrite on {p.new.version} {p.new.output.strip()!r}\n"
            )
    return "".join(lines)


def run_json(run: ProbeRun) -> dict[str, Any]:
    return {"version": run.version, "output": run.output, "python": run.python}


def _applied(a: Applied, audit: AuditResult) -> dict[str, Any]:
    t = a.transform
    return {
        **finding_json(a.finding, audit),
        "action": t.action,
        "on": t.on,
        "note": t.note,
        "requires": str(t.requires) if t.requires is not None else None,
    }


def _left(x: LeftAlone, audit: AuditResult) -> dict[str, Any]:
    return {**finding_json(x.finding, audit), "kind": x.kind, "reason": x.reason}


def document(result: FixResult, written: list[str] | None = None) -> dict[str, Any]:
    return {
        "mode": result.mode,
        "min_confidence": result.min_confidence,
        "transitions": [transition(t) for t in result.audit.transitions],
        "applied": [_applied(a, result.audit) for a in result.applied],
        "left_alone": [_left(x, result.audit) for x in result.left_alone],
        "files": [
            {"path": f.path, "changed": f.changed, "cells": [c for c, _, _ in f.cells]}
            for f in result.files
        ],
        "diff": unified_diff(result),
        "proofs": [
            {
                **finding_json(p.finding, result.audit),
                "status": p.status,
                "old": run_json(p.old),
                "new": run_json(p.new),
            }
            for p in result.proofs
        ],
        "checks": [{"change": c.change, **fix_check(c.check)} for c in result.checks],
        "written": written or [],
        "notes": [*result.audit.notes, *result.notes],
        "skipped": [{"path": s.path, "reason": s.reason} for s in result.audit.skipped],
    }


def render_json(result: FixResult, written: list[str] | None = None) -> str:
    return dumps(document(result, written))
