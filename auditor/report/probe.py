"""`auditor probe`: each crossed entry's probe outcome, with what both versions printed."""

from __future__ import annotations

from auditor import __version__
from auditor.models import AuditResult, FixCheck, ProbeOutcome, ProbeRun
from auditor.report import serialize
from auditor.report.json import dumps

STATUS = {
    "confirmed": "confirmed",
    "not-reproduced": "NOT REPRODUCED",
    "error": "ERROR",
    "skipped": "skipped",
}


def document(result: AuditResult) -> dict[str, object]:
    return serialize.envelope(
        tool={"name": "auditor", "version": __version__},
        transitions=[serialize.transition(t) for t in result.transitions],
        probes=[serialize.probe(p) for p in result.probes],
        notes=list(result.notes),
    )


def _run(label: str, run: ProbeRun | None) -> list[str]:
    if run is None:
        return []
    python = f", Python {run.python}" if run.python else ""
    lines = run.output.splitlines() or ["(no output)"]
    head = f"    {label} {run.version}{python}: "
    return [head + lines[0], *(" " * len(head) + line for line in lines[1:])]


def shape_lines(check: FixCheck, indent: str) -> list[str]:
    """A fix check's claimed shapes: a count, then one line per shape with its status."""
    if not check.shapes:
        return []
    counts = {
        s: sum(r.status == s for r in check.shapes) for s in ("ran", "raised", "differs", "unrun")
    }
    lines = [f"{indent}shapes: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)]
    for r in check.shapes:
        what = f" (old: {r.old}; new: {r.new})" if r.status in ("raised", "differs") else ""
        lines.append(f"{indent}  {r.status:<7} {r.call} -> {r.rewritten}{what}")
    return lines


def _outcome(outcome: ProbeOutcome) -> list[str]:
    lines = [f"{STATUS[outcome.status]:<15} {outcome.change}"]
    lines += _run("old", outcome.old) + _run("new", outcome.new)
    if outcome.reason:
        lines.append(f"    {outcome.reason}")
    for check in outcome.fixes:
        lines.append(f"    fix: {check.summary()}")
        lines += shape_lines(check, "      ")
    return lines


def text(result: AuditResult) -> str:
    lines = [f"{t.package} {t.old} -> {t.new}" for t in result.transitions]
    if not result.probes:
        lines.append("no crossed knowledge entry has a probe")
    for outcome in result.probes:
        lines += _outcome(outcome)
    counts: dict[str, int] = {}
    for outcome in result.probes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    if counts:
        lines.append(", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def render(result: AuditResult, fmt: str) -> str:
    return dumps(document(result)) if fmt == "json" else text(result)
