"""GitHub Actions workflow commands: `::error file=…,line=…::message` annotations.

GitHub shows at most 10 error and 10 warning annotations per step (and drops the rest
silently), so at most 10 are written per level, and one notice says how many were left
out and where to read them.
"""

from __future__ import annotations

from pathlib import Path

from auditor.models import AuditResult, rank
from auditor.report.summary import call_sites, is_low, section

LEVEL = {"high": "error", "medium": "warning", "low": "notice"}
LIMIT = 10


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **properties: str | int | None) -> str:
    props = ",".join(
        f"{k}={escape_property(str(v))}" for k, v in properties.items() if v is not None
    )
    return f"::{level}{' ' + props if props else ''}::{escape_data(message)}"


def render(result: AuditResult, prefix: str = "") -> str:
    entries: list[tuple[str, str]] = []  # (severity, command)
    low = call_sites(f for f in result.findings if is_low(f))
    findings = sorted(
        (f for f in result.findings if not is_low(f)),
        key=lambda f: (
            -rank(result.change(f.change).severity),
            f.path,
            f.cell or 0,
            f.line,
            f.column,
        ),
    )
    for f in findings:
        change = result.change(f.change)
        where = f"cell {f.cell}, line {f.line}: " if f.cell is not None else ""
        message = f"{where}{f.symbol}: {change.title} ({change.package} {change.introduced})."
        if f.message and f.message != change.title:
            message += f"\n{f.message}"
        message += f"\nKeep the old behaviour: {change.docs.keep_old}\nSee {change.id}"
        line = (
            (f.line, f.column) if f.cell is None else (None, None)
        )  # a cell line is not a file line
        where_listed = section(
            result, f
        )  # what the exit code leaves apart is a notice, as in SARIF
        apart = (where_listed == "warnings" and not result.gate.warnings) or (
            where_listed == "vendored" and not result.gate.vendored
        )
        entries.append(
            (
                "low" if apart else change.severity,
                command(
                    "notice" if apart else LEVEL[change.severity],
                    message,
                    file=f"{prefix}{f.path}",
                    line=line[0],
                    col=line[1],
                    title=f"auditor: {change.id}",
                ),
            )
        )
    for e in sorted(result.environment, key=lambda e: -rank(e.severity)):
        # a lock finding is annotated at the lock's line when its path is the repository's
        at = e.path if e.path and e.line and not Path(e.path).is_absolute() else None
        entries.append(
            (
                e.severity,
                command(
                    LEVEL[e.severity],
                    e.message,
                    file=at,
                    line=e.line if at else None,
                    title=f"auditor: {e.kind}",
                ),
            )
        )
    if low:  # first among the notices, so the cap never hides it
        generated = call_sites(
            f for f in result.findings if is_low(f) and result.change(f.change).harvested
        )
        why = (
            "the code in view does not show the affected case"
            if not generated
            else (
                "the code in view does not show the affected case, or the change is generated from the package's own "
                f"source, not probe-verified ({generated} of them)"
            )
        )
        entries.insert(
            0,
            (
                "low",
                command(
                    "notice",
                    f"{low} call site{'s are' if low != 1 else ' is'} at low confidence, not annotated: {why}. "
                    "The job summary lists them.",
                    title="auditor: low confidence",
                ),
            ),
        )

    by_level = {
        s: [text for level, text in entries if level == s] for s in ("high", "medium", "low")
    }
    overflow = any(len(texts) > LIMIT for texts in by_level.values())
    lines: list[str] = []
    left_out: dict[str, int] = {}
    for severity, texts in by_level.items():
        # The pointer to the rest is a notice too, and notices have the same cap.
        room = LIMIT - 1 if severity == "low" and overflow else LIMIT
        lines += texts[:room]
        if len(texts) > room:
            left_out[LEVEL[severity]] = len(texts) - room
    if left_out:
        counts = ", ".join(f"{n} {level}{'s' if n != 1 else ''}" for level, n in left_out.items())
        lines.append(
            command(
                "notice",
                f"{counts} not shown (GitHub shows {LIMIT} annotations per level and step). "
                "The job summary and `auditor compare … --format text` list every finding.",
                title="auditor: more findings",
            )
        )
    return "\n".join(lines) + ("\n" if lines else "")
