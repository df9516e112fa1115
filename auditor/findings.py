"""From a scan's raw findings to what a reviewer reads: the stages of one move crossed together
become one finding per line, and the harmless crossings become good news."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from auditor.models import Finding, GoodNews, SpecChange, rank


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
        extra = f" {base.message}" if base.message and base.message != by_id[base.change].title else ""
        merged.append(replace(
            base,
            confidence=max((f.confidence for f in group), key=rank),
            message=f"{len(stages)} stages crossed together: {move}.{extra}",
            stages=tuple(ids[:-1]),
        ))
    return tuple(merged)


def good_news(changes: Sequence[SpecChange], findings: Iterable[Finding]) -> tuple[GoodNews, ...]:
    """Each good-news change with the places that use what it touches."""
    sites: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        sites[f.change].append(f)
    return tuple(GoodNews(c, tuple(sites.get(c.id, ()))) for c in changes)
