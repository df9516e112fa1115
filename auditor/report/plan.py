"""`auditor plan` in text, JSON and Markdown: one row per later release."""

from __future__ import annotations

from typing import Any

from auditor import __version__
from auditor.plan import Plan, Row
from auditor.report.json import dumps
from auditor.report.markdown import _md
from auditor.report.serialize import envelope

LEGEND = (
    "Call sites are confident ones outside vendored code; gate: those that fail the exit code by default; "
    "fixable: those `auditor fix --keep-old --min-confidence medium` rewrites."
)
COLUMNS = (
    "release",
    "changes",
    "break",
    "change results",
    "only warn",
    "environment",
    "gate",
    "fixable",
    "low",
)


def _cells(row: Row) -> tuple[str, ...]:
    return (
        str(row.release),
        str(row.crossed),
        str(row.count("breaks")),
        str(row.count("changes-results")),
        str(row.count("warns")),
        str(row.count("environment")),
        str(row.gating),
        str(row.fixable),
        str(row.low),
    )


def _environment(row: Row) -> str:
    return "; ".join(f"{c.title} ({c.id})" for c in row.environment)


def _head(plan: Plan) -> str:
    horizon = f", up to the horizon {plan.horizon}" if plan.horizon is not None else ""
    return f"{plan.package} {plan.current}: what each later release does to this code{horizon}"


def text(plan: Plan) -> str:
    lines = [_head(plan), ""]
    if not plan.rows:
        lines.append(f"No later release of {plan.package} up to the horizon.")
    else:
        table = [COLUMNS, *(_cells(r) for r in plan.rows)]
        widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
        lines += [
            "  ".join(
                cell.rjust(w) if i else cell.ljust(w)
                for i, (cell, w) in enumerate(zip(row, widths))
            ).rstrip()
            for row in table
        ]
        arriving = [(r.release, _environment(r)) for r in plan.rows if r.environment]
        if arriving:
            lines += ["", "Environment changes:"] + [
                f"  {version}: {said}" for version, said in arriving
            ]
    lines += ["", LEGEND]
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"


def _row(row: Row) -> dict[str, Any]:
    return {
        "release": str(row.release),
        "changes": row.crossed,
        "call_sites": {
            "breaks": row.count("breaks"),
            "changes_results": row.count("changes-results"),
            "warns": row.count("warns"),
            "environment": row.count("environment"),
        },
        "gating_call_sites": row.gating,
        "fixable_call_sites": row.fixable,
        "low_confidence_call_sites": row.low,
        "environment": [{"change": c.id, "title": c.title} for c in row.environment],
    }


def json(plan: Plan) -> str:
    return dumps(
        envelope(
            tool={"name": "auditor", "version": __version__},
            package=plan.package,
            current=str(plan.current),
            horizon=str(plan.horizon) if plan.horizon is not None else None,
            rows=[_row(r) for r in plan.rows],
            notes=list(plan.notes),
        )
    )


def markdown(plan: Plan) -> str:
    lines = [f"## auditor plan: {_head(plan)}", ""]
    if not plan.rows:
        lines.append(f"No later release of {plan.package} up to the horizon.")
    else:
        lines += [
            "| " + " | ".join(COLUMNS) + " | environment changes |",
            "|" + " --- |" * (len(COLUMNS) + 1),
        ]
        lines += ["| " + " | ".join(_cells(r)) + f" | {_md(_environment(r))} |" for r in plan.rows]
    lines += ["", LEGEND]
    lines += [f"- {_md(n)}" for n in plan.notes]
    return "\n".join(lines) + "\n"


RENDER = {"text": text, "json": json, "markdown": markdown}
