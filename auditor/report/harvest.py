"""A harvest's candidate changes, per release pair, in text or JSON."""

from __future__ import annotations

from collections import Counter
from typing import Any

from auditor.harvest.candidates import KINDS
from auditor.harvest.coverage import STATES, Coverage
from auditor.harvest.model import Candidate, Harvest
from auditor.report.json import dumps
from auditor.report.serialize import envelope


def candidate(c: Candidate) -> dict[str, Any]:
    return {
        "id": c.id, "package": c.package, "from": c.before, "to": c.release, "kind": c.kind,
        "symbol": c.symbol, "parameter": c.parameter, "guard": c.guard, "category": c.category,
        "detail": c.detail,
        "evidence": [{"release": e.release, "file": e.file, "line": e.line, "message": e.message}
                     for e in c.evidence],
    }


def pairs(h: Harvest) -> list[dict[str, Any]]:
    """Per consecutive pair of harvested releases: how many candidates of each kind."""
    out = []
    for old, new in zip(h.releases, h.releases[1:], strict=False):
        counts = Counter(c.kind for c in h.candidates if c.before == old.version and c.release == new.version)
        out.append({"from": old.version, "to": new.version, "candidates": sum(counts.values()),
                    "kinds": {k: counts[k] for k in KINDS if counts[k]}})
    return out


def document(h: Harvest) -> dict[str, Any]:
    return envelope(
        package=h.package,
        releases=[{"version": r.version, "wheel": r.wheel, "symbols": len(r.symbols),
                   "deprecation_sites": len(r.sites)} for r in h.releases],
        failed=[{"version": v, "reason": reason} for v, reason in h.failed],
        pairs=pairs(h),
        candidates=[candidate(c) for c in h.candidates],
        notes=list(h.notes),
    )


def render(h: Harvest, fmt: str) -> str:
    if fmt == "json":
        return dumps(document(h))
    lines: list[str] = []
    for pair in pairs(h):
        kinds = ", ".join(f"{n} {k}" for k, n in pair["kinds"].items())
        lines.append(f"{h.package} {pair['from']} -> {pair['to']}: {pair['candidates']} candidates"
                     + (f" ({kinds})" if kinds else ""))
        for c in h.candidates:
            if c.before == pair["from"] and c.release == pair["to"]:
                e = c.evidence[-1]
                lines.append(f"  {c.kind:24} {c.symbol}  {c.detail}")
                lines.append(f"  {'':24} {e.release} {e.file}:{e.line}: {e.message}")
    harvested = ", ".join(f"{r.version} ({len(r.symbols)} symbols, {len(r.sites)} deprecation sites)"
                          for r in h.releases)
    lines.append(f"harvested {len(h.releases)} releases of {h.package}: {harvested or 'none'}")
    lines.append(f"{len(h.candidates)} candidates")
    lines += [f"note: {n}" for n in h.notes]
    return "\n".join(lines) + "\n"


def coverage(results: list[Coverage], fmt: str, verbose: bool = False) -> str:
    if fmt == "json":
        return dumps(envelope(packages=[{
            "package": c.package,
            "releases": [{"from": a, "to": b, "candidates": sum(n.values()), **n} for a, b, n in c.per_release()],
            "totals": {"candidates": len(c.standings), **c.totals()},
            "open": [{"id": s.candidate.id, "reason": s.why} for s in c.standings if s.state == "open"],
        } for c in results]))
    lines = []
    for c in results:
        lines.append(f"{c.package}: {'from':>9} -> {'to':9} {'candidates':>10} " + " ".join(f"{s:>9}" for s in STATES))
        for a, b, counts in c.per_release():
            lines.append(f"{'':{len(c.package) + 1}} {a:>9} -> {b:9} {sum(counts.values()):>10} "
                         + " ".join(f"{counts[s]:>9}" for s in STATES))
        totals = c.totals()
        lines.append(f"{'':{len(c.package) + 1}} {'total':>22} {len(c.standings):>10} "
                     + " ".join(f"{totals[s]:>9}" for s in STATES))
        if verbose:
            lines += [f"  open {s.candidate.id}: {s.why}" for s in c.standings if s.state == "open"]
    if not results:
        lines.append("no harvested candidates are shipped")
    return "\n".join(lines) + "\n"
