"""From a scan's raw findings to what a reviewer reads: the stages of one move crossed together
become one finding per line, a generated change's finding on a call a curated entry already
reports is folded into a note, the changes left at one call site become one finding (the one
that matters most, with the others in `also`), and the harmless crossings become good news."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from auditor.knowledge.entry import CONSEQUENCES, SpecChange
from auditor.models import Finding, GoodNews, rank

CONSEQUENCE_VERB = {
    "breaks": "breaks",
    "changes-results": "changes results",
    "environment": "changes the environment",
    "warns": "warns",
}


def _latest_stage(changes: Sequence[SpecChange]) -> dict[str, str]:
    """Each crossed change's last crossed stage: itself, or the latest crossed entry that
    continues it (`follows` holds every earlier stage, so no walk is needed)."""
    last = {c.id: c for c in changes}
    for later in changes:
        for earlier in later.follows:
            if earlier in last and later.introduced > last[earlier].introduced:
                last[earlier] = later
    return {i: c.id for i, c in last.items()}


def merge_stages(findings: Iterable[Finding], changes: Sequence[SpecChange]) -> tuple[Finding, ...]:
    """One finding per line and move: where stages of one move (ONNX's default opset 13 -> 14
    -> 17, a deprecation and the removal that follows it) hit the same place, the latest
    stage's finding stays and states the whole move; the others are folded into it."""
    by_id = {c.id: c for c in changes}
    last = _latest_stage(changes)
    groups: dict[tuple[object, ...], list[Finding]] = defaultdict(list)
    for f in findings:
        groups[(f.path, f.cell, f.line, f.column, last.get(f.change, f.change))].append(f)
    merged = []
    for group in groups.values():
        ids = sorted({f.change for f in group}, key=lambda i: (by_id[i].introduced, i))
        if len(ids) == 1:
            merged += group
            continue
        base = next(f for f in group if f.change == ids[-1])
        stages = [by_id[i] for i in ids]
        move = "; ".join(f"{c.introduced}: {c.title}" for c in stages)
        extra = (
            f" {base.message}" if base.message and base.message != by_id[base.change].title else ""
        )
        merged.append(
            replace(
                base,
                confidence=max((f.confidence for f in group), key=rank),
                message=f"{len(stages)} stages crossed together: {move}.{extra}",
                stages=tuple(ids[:-1]),
            )
        )
    return tuple(merged)


def fold_generated(
    findings: Sequence[Finding], changes: Sequence[SpecChange]
) -> tuple[tuple[Finding, ...], str | None]:
    """The findings without those of generated (harvested) changes on a call that a curated
    finding already reports (same place, same symbol): verified knowledge already sends the
    reviewer there, and an unverified guess about the same call (`torch.onnx.export`'s `optimize`
    default next to the curated switch to the dynamo exporter) is not a second finding. The
    note names each one folded (None when none is)."""
    generated = {c.id for c in changes if c.harvested is not None}
    curated = {
        (f.path, f.cell, f.line, f.column, f.symbol) for f in findings if f.change not in generated
    }
    kept, folded = [], []
    for f in findings:
        if f.change in generated and (f.path, f.cell, f.line, f.column, f.symbol) in curated:
            folded.append(f)
        else:
            kept.append(f)
    if not folded:
        return tuple(kept), None
    where = "; ".join(f"{f.path}:{f.line} {f.change}" for f in folded)
    return tuple(kept), (
        f"{len(folded)} finding(s) of generated changes (from the package's own source, not "
        f"probe-verified) are on calls a curated entry already reports, and are not listed apart: {where}"
    )


def good_news(changes: Sequence[SpecChange], findings: Iterable[Finding]) -> tuple[GoodNews, ...]:
    """Each good-news change with the places that use what it touches."""
    sites: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        sites[f.change].append(f)
    return tuple(GoodNews(c, tuple(sites.get(c.id, ()))) for c in changes)


def _primary_key(f: Finding, change: SpecChange) -> tuple[object, ...]:
    """The order of the findings at one call site: the one a reviewer acts on first (confident
    before low, then by consequence tier, severity and confidence) leads the row."""
    return (
        f.confidence == "low",
        CONSEQUENCES.index(change.consequence),
        -rank(change.severity),
        -rank(f.confidence),
        change.id,
    )


def one_per_site(findings: Iterable[Finding], changes: Sequence[SpecChange]) -> tuple[Finding, ...]:
    """One finding per call site: where several crossed changes touch the same place, the one
    that matters most states it and the others are folded into its `also`, each with its reason.
    Where a fix of the leading change writes a call that a folded (or any crossed) change flags,
    `fix_note` says what that rewrite trades."""
    by_id = {c.id: c for c in changes}
    sites: dict[tuple[object, ...], list[Finding]] = defaultdict(list)
    for f in findings:
        sites[(f.path, f.cell, f.line, f.column)].append(f)
    merged = []
    for group in sites.values():
        ordered = sorted(group, key=lambda f: _primary_key(f, by_id[f.change]))
        lead = ordered[0]
        merged.append(
            replace(
                lead, also=tuple(ordered[1:]), fix_note=_trade(lead, by_id[lead.change], changes)
            )
        )
    return tuple(sorted(merged, key=lambda f: (f.path, f.cell or 0, f.line, f.column)))


def _trade(f: Finding, change: SpecChange, changes: Sequence[SpecChange]) -> str | None:
    """What the keep-old rewrite of `change` at `f` trades: a keyword it sets to a value that
    another crossed change's matcher flags on the same call (`dynamo=False`, the TorchScript
    exporter that warns from 2.8)."""
    if change.fix is None:
        return None
    earlier = {
        stage for c in changes for stage in c.follows
    }  # a move is named by its latest crossed stage
    traded = []
    for t in change.fix.keep_old:
        if t.action != "set-keyword" or t.keyword is None or t.value is None:
            continue
        for other in changes:
            if other.id == change.id or other.id in earlier:
                continue
            for m in other.matches:
                values = dict(m.when.keyword_values).get(t.keyword, ())
                if m.call == f.symbol and any(repr(v) == t.value for v in values):
                    traded.append(
                        f"keep-old's `{t.keyword}={t.value}` is what {other.id} flags (it "
                        f"{CONSEQUENCE_VERB[other.consequence]}); adopt-new avoids that"
                    )
    return "; ".join(dict.fromkeys(traded)) or None
