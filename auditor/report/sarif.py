"""SARIF 2.1.0 for GitHub code scanning: one run, one rule per crossed knowledge entry.

Paths are relative to the repository root (`prefix` is the project's folder in it), so
alerts keep their identity from run to run; `partialFingerprints` hash what a call site
is (change, file, symbol, code), not the line it sits on, so moving code does not churn
alerts. Compatibility problems of the bump have no source location: they are reported
as tool notifications of the invocation.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from auditor import __version__
from auditor.knowledge.entry import SpecChange
from auditor.models import AuditResult, Finding, Gate, rank
from auditor.report import json as json_report
from auditor.report.serialize import transition
from auditor.report.suggest import Replacement, site_fixes

if TYPE_CHECKING:  # not loaded with every report: the fix engine brings libcst
    from auditor.fix.model import FixResult

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"high": "error", "medium": "warning", "low": "note"}
PROBLEM = {"high": "error", "medium": "warning", "low": "recommendation"}
FINGERPRINT = "auditorCallSite/v1"


def _camel(change_id: str) -> str:
    return "".join(part.capitalize() for part in change_id.replace("_", "-").split("-") if part)


def help_text(c: SpecChange) -> str:
    d = c.docs
    parts = [
        f"What changed: {d.what}",
        f"Why it matters: {d.why}",
        f"Example: {d.before}",
        f"Keep the old behaviour: {d.keep_old}",
        f"Adopt the new behaviour: {d.adopt_new}",
    ]
    if d.notes:
        parts.append(f"Known problems: {d.notes}")
    parts.append("References: " + " ".join(c.references))
    return "\n\n".join(parts)


def help_markdown(c: SpecChange) -> str:
    d = c.docs
    parts = [
        f"**{c.title}** ({c.package} {c.introduced}, {c.kind}, {'silent' if c.silent else 'loud'})",
        f"## What changed\n{d.what}",
        f"## Why is this bad?\n{d.why}",
        f"## Example\n```python\n{d.before}\n```",
        f"## Keep the old behaviour\n```python\n{d.keep_old}\n```",
        f"## Adopt the new behaviour\n```python\n{d.adopt_new}\n```",
    ]
    if d.notes:
        parts.append(f"## Known problems\n{d.notes}")
    parts.append("## References\n" + "\n".join(f"- <{r}>" for r in c.references))
    return "\n\n".join(parts)


def rule(c: SpecChange) -> dict[str, Any]:
    precision = max((m.confidence for m in c.matches), key=rank, default="medium")
    return {
        "id": c.id,
        "name": _camel(c.id),
        "shortDescription": {"text": c.title[:1024]},
        "fullDescription": {"text": c.docs.what},
        "help": {"text": help_text(c), "markdown": help_markdown(c)},
        **({"helpUri": c.references[0]} if c.references else {}),
        "defaultConfiguration": {"level": LEVEL[c.severity]},
        "properties": {
            "tags": [c.package, c.kind, "silent" if c.silent else "loud"],
            "precision": precision,
            "problem.severity": PROBLEM[c.severity],
            "introduced": str(c.introduced),
            "references": list(c.references),
        },
    }


def fingerprint(f: Finding, uri: str, occurrence: int) -> str:
    """Stable across runs and line moves: what the call site is, and which of its twins."""
    key = "\0".join(
        [f.change, uri, str(f.cell or ""), f.symbol, " ".join(f.snippet.split()), str(occurrence)]
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _uri(prefix: str, path: str) -> str:
    """A relative URI reference: the repository path, percent-encoded (`conv 1d.py` -> `conv%201d.py`)."""
    return quote(f"{prefix}{path}", safe="/")


def _level(f: Finding, change: SpecChange, gate: Gate) -> str:
    """Low confidence never reads as an error or warning (the code in view does not show the
    case), nor does what the exit code leaves apart: a warning only, vendored code."""
    if (
        f.confidence == "low"
        or (change.consequence == "warns" and not gate.warnings)
        or (f.vendored and not gate.vendored)
    ):
        return "note"
    return LEVEL[change.severity]


def _result(
    f: Finding, change: SpecChange, index: int, prefix: str, occurrence: int, result: AuditResult
) -> dict[str, Any]:
    uri = _uri(prefix, f.path)
    where = f"cell {f.cell}, line {f.line}: " if f.cell is not None else ""
    message = f"{where}{f.symbol}: {change.title}."
    if f.message and f.message != change.title:
        message += f" {f.message}"
    message += f" Fix: {change.docs.keep_old}"
    message += "".join(f" Also {a.change}: {a.message}" for a in f.also)
    message += f" Fix trade: {f.fix_note}" if f.fix_note else ""
    # A notebook's cell line is not a line of the .ipynb file; point at the file's start.
    region: dict[str, Any] = (
        {"startLine": f.line, "startColumn": f.column, "snippet": {"text": f.snippet}}
        if f.cell is None
        else {"startLine": 1}
    )
    return {
        "ruleId": change.id,
        "ruleIndex": index,
        "level": _level(f, change, result.gate),
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                    "region": region,
                },
            }
        ],
        "partialFingerprints": {FINGERPRINT: fingerprint(f, uri, occurrence)},
        "properties": {
            "confidence": f.confidence,
            "symbol": f.symbol,
            "consequence": change.consequence,
            "gates": result.gates(f),
            "also": [a.change for a in f.also],
            **({"cell": f.cell, "cellLine": f.line} if f.cell is not None else {}),
        },
    }


def _fix(uri: str, description: str, found: list[Replacement]) -> dict[str, Any]:
    return {
        "description": {"text": description},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                "replacements": [r.sarif() for r in found],
            }
        ],
    }


def document(
    result: AuditResult, prefix: str = "", fixes: FixResult | None = None
) -> dict[str, Any]:
    """`fixes`: the engine's rewrite of the findings (`auditor fix`, nothing written); each
    call site it rewrote gets a SARIF `fixes` entry with the replaced lines."""
    changes = sorted(result.changes, key=lambda c: c.id)
    by_site = site_fixes(fixes) if fixes is not None else {}
    transforms = {
        (a.finding.path, a.finding.line, a.finding.column, a.finding.change): a.transform
        for a in (fixes.applied if fixes is not None else ())
    }
    index = {c.id: i for i, c in enumerate(changes)}
    seen: Counter[tuple[str, ...]] = Counter()
    results = []
    for f in sorted(
        result.findings, key=lambda f: (f.path, f.cell or 0, f.line, f.column, f.change)
    ):
        uri = _uri(prefix, f.path)
        key = (f.change, uri, str(f.cell), f.symbol, " ".join(f.snippet.split()))
        occurrence = seen[key]
        seen[key] += 1
        item = _result(f, result.change(f.change), index[f.change], prefix, occurrence, result)
        for site in (
            (e.path, e.line, e.column, e.change) for e in f.each()
        ):  # the leading change's first
            if site in by_site and fixes is not None:
                transform = transforms[site]
                described = f"auditor fix --{fixes.mode}: {transform.note or transform.action}"
                item["fixes"] = [_fix(uri, described, by_site[site])]
                break
        results.append(item)
    notifications = (
        [
            {
                "descriptor": {"id": e.kind},
                "level": LEVEL[e.severity],
                "message": {"text": e.message},
            }
            | (
                {
                    "locations": [
                        {
                            "physicalLocation": {  # a lock finding: the lock's line, as given
                                "artifactLocation": {"uri": quote(e.path, safe="/")},
                                "region": {"startLine": e.line},
                            }
                        }
                    ]
                }
                if e.path and e.line
                else {}
            )
            for e in result.environment
        ]
        + [
            {
                "descriptor": {"id": "skipped"},
                "level": "note",
                "message": {"text": f"{s.path}: {s.reason}"},
            }
            for s in result.skipped
        ]
        + [
            {"descriptor": {"id": "note"}, "level": "note", "message": {"text": note}}
            for note in result.notes
        ]
        + [
            {
                "descriptor": {"id": "good-news"},
                "level": "note",
                "message": {
                    "text": g.message
                    + "".join(f" {_uri(prefix, f.path)}:{f.line}" for f in g.sites[:10])
                },
            }
            for g in result.good_news
        ]
    )
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "auditor",
                        "fullName": "lockfile-auditor",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [rule(c) for c in changes],
                    }
                },
                "invocations": [
                    {"executionSuccessful": True, "toolExecutionNotifications": notifications}
                ],
                "results": results,
                "properties": {
                    "transitions": [transition(t) for t in result.transitions],
                    "horizon": {package: str(newest) for package, newest in result.horizon},
                },
            }
        ],
    }


def render(result: AuditResult, prefix: str = "", fixes: FixResult | None = None) -> str:
    return json_report.dumps(document(result, prefix, fixes))


def write(
    result: AuditResult, out: TextIO, prefix: str = "", fixes: FixResult | None = None
) -> None:
    json_report.dump(document(result, prefix, fixes), out)
