"""A harvest's candidate changes, per release pair, in text or JSON."""

from __future__ import annotations

from collections import Counter
from typing import Any

from auditor.harvest.candidates import KINDS
from auditor.harvest.coverage import STATES, Coverage
from auditor.harvest.cxx import STATES as CXX_STATES
from auditor.harvest.cxx import CxxStanding
from auditor.harvest.model import Candidate, Harvest
from auditor.harvest.witness import FILE as WITNESS_FILE
from auditor.harvest.witness import STATES as WITNESS_STATES
from auditor.harvest.witness import Verdict, Witness
from auditor.report.json import dumps
from auditor.report.serialize import envelope


def candidate(c: Candidate) -> dict[str, Any]:
    return {
        "id": c.id,
        "package": c.package,
        "from": c.before,
        "to": c.release,
        "kind": c.kind,
        "symbol": c.symbol,
        "parameter": c.parameter,
        "guard": c.guard,
        "category": c.category,
        "detail": c.detail,
        "evidence": [
            {"release": e.release, "file": e.file, "line": e.line, "message": e.message}
            for e in c.evidence
        ],
    }


def pairs(h: Harvest) -> list[dict[str, Any]]:
    """Per consecutive pair of harvested releases: how many candidates of each kind."""
    out = []
    for old, new in zip(h.releases, h.releases[1:], strict=False):
        counts = Counter(
            c.kind for c in h.candidates if c.before == old.version and c.release == new.version
        )
        out.append(
            {
                "from": old.version,
                "to": new.version,
                "candidates": sum(counts.values()),
                "kinds": {k: counts[k] for k in KINDS if counts[k]},
            }
        )
    return out


def document(h: Harvest) -> dict[str, Any]:
    return envelope(
        package=h.package,
        releases=[
            {
                "version": r.version,
                "wheel": r.wheel,
                "symbols": len(r.symbols),
                "deprecation_sites": len(r.sites),
            }
            for r in h.releases
        ],
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
        lines.append(
            f"{h.package} {pair['from']} -> {pair['to']}: {pair['candidates']} candidates"
            + (f" ({kinds})" if kinds else "")
        )
        for c in h.candidates:
            if c.before == pair["from"] and c.release == pair["to"]:
                e = c.evidence[-1]
                lines.append(f"  {c.kind:24} {c.symbol}  {c.detail}")
                lines.append(f"  {'':24} {e.release} {e.file}:{e.line}: {e.message}")
    harvested = ", ".join(
        f"{r.version} ({len(r.symbols)} symbols, {len(r.sites)} deprecation sites)"
        for r in h.releases
    )
    lines.append(f"harvested {len(h.releases)} releases of {h.package}: {harvested or 'none'}")
    lines.append(f"{len(h.candidates)} candidates")
    lines += [f"note: {n}" for n in h.notes]
    return "\n".join(lines) + "\n"


def _verdict(v: Verdict) -> dict[str, Any]:
    return {
        "entry": v.entry,
        "introduced": v.introduced,
        "symbol": v.symbol,
        "harvest": list(v.releases),
        "candidates": list(v.candidates),
        **({"reason": v.why} if v.why else {}),
    }


def _witness_json(w: Witness | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "totals": w.totals(),
        "disagree": [_verdict(v) for v in w.of("disagree")],
        "resolved": [_verdict(v) for v in w.of("resolved")],
        "no_candidate": [v.entry for v in w.of("no candidate")],
        "stale_leads": [
            {"entry": s.entry, "symbols": list(s.symbols), "release": s.release} for s in w.stale
        ],
    }


def _witness_text(w: Witness, verbose: bool) -> list[str]:
    totals = w.totals()
    lines = [
        "  witness (curated releases against the harvest): "
        + ", ".join(f"{totals[s]} {s}" for s in WITNESS_STATES)
    ]
    for v in w.of("disagree"):
        lines.append(
            f"  DISAGREE {v.entry}: {v.symbol} is {v.introduced} in the entry, "
            f"{', '.join(v.releases)} in the harvest ({', '.join(v.candidates)})"
        )
    for s in w.stale:
        lines.append(
            f"  STALE LEAD {s.entry}: {', '.join(s.symbols)} at {s.release} no longer disagrees: "
            f"remove it from harvest/{WITNESS_FILE}"
        )
    unwitnessed = w.of("no candidate")
    if unwitnessed:
        lines.append(
            f"  {len(unwitnessed)} entries have no candidate and no `evidence`"
            + (":" if verbose else " (-v lists them)")
        )
        if verbose:
            lines += [f"    {v.entry} ({v.introduced})" for v in unwitnessed]
    if verbose:
        lines += [
            f"  resolved {v.entry}: {v.symbol} at {', '.join(v.releases)}: {v.why}"
            for v in w.of("resolved")
        ]
    return lines


def _cxx_releases(standings: tuple[CxxStanding, ...]) -> list[tuple[str, str, dict[str, int]]]:
    pairs: dict[tuple[str, str], dict[str, int]] = {}
    for s in standings:
        pairs.setdefault((s.candidate.before, s.candidate.release), dict.fromkeys(CXX_STATES, 0))[
            s.state
        ] += 1
    return [(a, b, counts) for (a, b), counts in pairs.items()]


def _cxx_json(standings: tuple[CxxStanding, ...]) -> dict[str, Any]:
    return {
        "releases": [
            {"from": a, "to": b, "candidates": sum(n.values()), **n}
            for a, b, n in _cxx_releases(standings)
        ],
        "totals": {
            "candidates": len(standings),
            **{s: sum(x.state == s for x in standings) for s in CXX_STATES},
        },
        "open": [
            {"id": s.candidate.id, "message": s.candidate.message, "reason": s.why}
            for s in standings
            if s.state == "open"
        ],
    }


def _cxx_text(standings: tuple[CxxStanding, ...], verbose: bool) -> list[str]:
    if not standings:
        return []
    lines = [
        f"  C++ messages: {'from':>9} -> {'to':9} {'candidates':>10} "
        + " ".join(f"{s:>9}" for s in CXX_STATES)
    ]
    for a, b, counts in _cxx_releases(standings):
        lines.append(
            f"  {'':13} {a:>9} -> {b:9} {sum(counts.values()):>10} "
            + " ".join(f"{counts[s]:>9}" for s in CXX_STATES)
        )
    lines.append(
        f"  {'':13} {'total':>22} {len(standings):>10} "
        + " ".join(f"{sum(x.state == s for x in standings):>9}" for s in CXX_STATES)
    )
    if verbose:
        lines += [
            f"  open {s.candidate.id}: {s.candidate.message!r}: {s.why}"
            for s in standings
            if s.state == "open"
        ]
    return lines


def _surface_json(c: Coverage) -> dict[str, Any] | None:
    """The newest release's deprecation surface (`Coverage.live`), counted per state."""
    newest = c.newest()
    if newest is None:
        return None
    live = c.live(newest)
    counts = {state: sum(s == state for s in live.values()) for state in STATES}
    reviewable = len(live) - counts["waived"]
    share = 100 * counts["covered"] // reviewable if reviewable else 100
    return {"release": newest, "symbols": len(live), **counts, "share": share}


def coverage(results: list[Coverage], fmt: str, verbose: bool = False) -> str:
    if fmt == "json":
        return dumps(
            envelope(
                packages=[
                    {
                        "package": c.package,
                        "releases": [
                            {"from": a, "to": b, "candidates": sum(n.values()), **n}
                            for a, b, n in c.per_release()
                        ],
                        "totals": {"candidates": len(c.standings), **c.totals()},
                        "open": [
                            {"id": s.candidate.id, "reason": s.why}
                            for s in c.standings
                            if s.state == "open"
                        ],
                        "witness": _witness_json(c.witness),
                        "cxx": _cxx_json(c.cxx),
                        "deprecations": _surface_json(c),
                    }
                    for c in results
                ]
            )
        )
    lines = []
    for c in results:
        lines.append(
            f"{c.package}: {'from':>9} -> {'to':9} {'candidates':>10} "
            + " ".join(f"{s:>9}" for s in STATES)
        )
        for a, b, counts in c.per_release():
            lines.append(
                f"{'':{len(c.package) + 1}} {a:>9} -> {b:9} {sum(counts.values()):>10} "
                + " ".join(f"{counts[s]:>9}" for s in STATES)
            )
        totals = c.totals()
        lines.append(
            f"{'':{len(c.package) + 1}} {'total':>22} {len(c.standings):>10} "
            + " ".join(f"{totals[s]:>9}" for s in STATES)
        )
        if verbose:
            lines += [f"  open {s.candidate.id}: {s.why}" for s in c.standings if s.state == "open"]
        surface = _surface_json(c)
        if surface is not None:
            lines.append(
                f"  deprecation surface of {surface['release']}: {surface['symbols']} symbols still marked, "
                f"{surface['covered']} covered by a curated entry ({surface['share']} % of the "
                f"{surface['symbols'] - surface['waived']} not waived), {surface['waived']} waived, "
                f"{surface['generated']} generated, {surface['open']} open"
            )
        if c.witness is not None:
            lines += _witness_text(c.witness, verbose)
        lines += _cxx_text(c.cxx, verbose)
    if not results:
        lines.append("no harvested candidates are shipped")
    return "\n".join(lines) + "\n"
