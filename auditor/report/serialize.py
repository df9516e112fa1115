"""Plain-data views of results: what the JSON contract names each thing, shared by renderers."""

from __future__ import annotations

from typing import Any

from auditor import __version__
from auditor.fix.spec import ACTIONS, Transform
from auditor.knowledge.entry import SpecChange
from auditor.models import (
    AuditResult,
    EnvironmentFinding,
    Finding,
    FixCheck,
    GoodNews,
    InDependency,
    Pin,
    ProbeOutcome,
    ProbeRun,
    Skipped,
    Transition,
)
from auditor.report.summary import Tally, tally

SCHEMA_VERSION = "1"


def version_label(t: Transition, side: str) -> str:
    """A side of a transition as reports write it: its version, `unpinned` or `(none)`."""
    version = t.old if side == "old" else t.new
    if version is not None:
        return str(version)
    return "unpinned" if t.unpinned else "(none)"


def transition(t: Transition) -> dict[str, Any]:
    return {
        "package": t.package,
        "from": str(t.old) if t.old is not None else None,
        "to": str(t.new) if t.new is not None else None,
        "direction": t.direction,
        "environment": t.environment,
        "variant": t.variant,
    }


def change(c: SpecChange) -> dict[str, Any]:
    return {
        "id": c.id,
        "package": c.package,
        "introduced": str(c.introduced),
        "until": str(c.until) if c.until else None,
        "kind": c.kind,
        "consequence": c.consequence,
        "hazard": c.hazard,
        "follows": list(c.follows),
        "severity": c.severity,
        "silent": c.silent,
        "title": c.title,
        "symbols": list(c.symbols),
        "references": list(c.references),
        "python": str(c.python) if c.python else None,
        "fix": {"keep_old": c.docs.keep_old, "adopt_new": c.docs.adopt_new},
        "fix_transforms": {
            "keep_old": [transform(t) for t in c.fix.keep_old],
            "adopt_new": [transform(t) for t in c.fix.adopt_new],
        }
        if c.fix
        else None,
        "source": "harvested" if c.harvested else "curated",
        **(
            {
                "evidence": {
                    "release": c.harvested.release,
                    "file": c.harvested.file,
                    "line": c.harvested.line,
                    "message": c.harvested.message,
                }
            }
            if c.harvested
            else {}
        ),
        **({"since": str(c.since)} if c.since else {}),
    }


def transform(t: Transform) -> dict[str, Any]:
    """A `[fix]` transform with the fields its action reads (see fix.spec.ACTIONS)."""
    fields: dict[str, Any] = {
        "on": t.on,
        "action": t.action,
        "note": t.note,
        "requires": str(t.requires) if t.requires else None,
    }
    for name in ACTIONS[t.action].fields:
        value = getattr(t, name)
        if (
            name == "map"
        ):  # map-keyword rows as written: {KEYWORD: [literal, ...], ..., "to": source}
            value = [{**{k: list(v) for k, v in row.when}, "to": row.value} for row in value]
        elif name == "proven_values":
            value = {k: list(v) for k, v in value}
        fields[name] = list(value) if isinstance(value, tuple) else value
    return fields


def finding(f: Finding, result: AuditResult) -> dict[str, Any]:
    """A call site: its leading change, and `also` the other crossed changes at the same place."""
    return {
        "change": f.change,
        "symbol": f.symbol,
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "cell": f.cell,
        "confidence": f.confidence,
        "message": f.message,
        "snippet": f.snippet,
        "stages": list(f.stages),
        "shape": f.shape,
        "consequence": result.change(f.change).consequence,
        "gates": result.gates(f),
        "vendored": f.vendored,
        "also": [
            {
                "change": a.change,
                "consequence": result.change(a.change).consequence,
                "confidence": a.confidence,
                "message": a.message,
                "stages": list(a.stages),
            }
            for a in f.also
        ],
        "fix_note": f.fix_note,
    }


def dependency(d: InDependency, result: AuditResult) -> dict[str, Any]:
    """A call in a locked dependency: the finding (its path inside the package), the package and
    version, `via` the project's calls that reach it, and the releases that drop it."""
    return {
        "package": d.package,
        "version": str(d.version),
        **finding(d.finding, result),
        "gates": result.gates_dependency(d),
        "via": [
            {"path": w.path, "line": w.line, "cell": w.cell, "chain": list(w.chain)} for w in d.via
        ],
        "fixed_in": str(d.fixed_in) if d.fixed_in else None,
        "latest": str(d.latest) if d.latest else None,
    }


def good_news(g: GoodNews) -> dict[str, Any]:
    c = g.change
    return {
        "change": c.id,
        "package": c.package,
        "introduced": str(c.introduced),
        "until": str(c.until) if c.until else None,
        "kind": c.kind,
        "title": c.title,
        "message": g.message,
        "references": list(c.references),
        "sites": [
            {"path": f.path, "line": f.line, "column": f.column, "cell": f.cell, "symbol": f.symbol}
            for f in g.sites
        ],
    }


def counts(t: Tally) -> dict[str, int]:
    return {
        "gating_call_sites": t.gating,
        "warning_call_sites": t.warnings,
        "vendored_call_sites": t.vendored,
        "call_sites": t.call_sites,
        "files": t.files,
        "changes": t.changes,
        "low_confidence_call_sites": t.low_call_sites,
        "low_confidence_files": t.low_files,
        "low_confidence_changes": t.low_changes,
    }


def environment(e: EnvironmentFinding) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "severity": e.severity,
        "message": e.message,
        "package": e.package,
        "path": e.path,
        "line": e.line,
        "change": e.change,
        "gates": e.gates,
    }


def _run(run: ProbeRun | None) -> dict[str, Any] | None:
    return (
        None
        if run is None
        else {"version": run.version, "output": run.output, "python": run.python}
    )


def fix_check(f: FixCheck) -> dict[str, Any]:
    return {
        "mode": f.mode,
        "status": f.status,
        "versions": list(f.versions),
        "outputs": list(f.outputs),
        "reason": f.reason,
        "summary": f.summary(),
        "shapes": [
            {
                "call": r.call,
                "rewritten": r.rewritten,
                "old": r.old,
                "new": r.new,
                "status": r.status,
            }
            for r in f.shapes
        ],
    }


def probe(p: ProbeOutcome) -> dict[str, Any]:
    return {
        "change": p.change,
        "status": p.status,
        "old": _run(p.old),
        "new": _run(p.new),
        "reason": p.reason,
        "fixes": [fix_check(f) for f in p.fixes],
    }


def skipped(s: Skipped) -> dict[str, Any]:
    return {"path": s.path, "reason": s.reason, "kind": s.kind}


def pin(p: Pin) -> dict[str, Any]:
    return {
        "name": p.name,
        "version": str(p.version) if p.version is not None else None,
        "marker": p.marker,
        "source": p.source,
        "groups": list(p.groups),
    }


def envelope(**fields: Any) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, **fields}


def audit_result(result: AuditResult) -> dict[str, Any]:
    return envelope(
        tool={"name": "auditor", "version": __version__},
        transitions=[transition(t) for t in result.transitions],
        changes=[change(c) for c in result.changes],
        findings=[finding(f, result) for f in result.findings],
        dependencies={
            "read": list(result.dependencies_read),
            "requirements_read": result.requirements_read,
            "findings": [dependency(d, result) for d in result.dependencies],
        },
        environment=[environment(e) for e in result.environment],
        probes=[probe(p) for p in result.probes],
        skipped=[skipped(s) for s in result.skipped],
        notes=list(result.notes),
        good_news=[good_news(g) for g in result.good_news],
        counts=counts(tally(result)),
        horizon={package: str(newest) for package, newest in result.horizon},
        verdict=result.verdict(),
    )
