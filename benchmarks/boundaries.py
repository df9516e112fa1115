"""Which probed torch entries are pinned on both sides of their boundary by real runs.

    python benchmarks/boundaries.py            # the summary and one line per entry not pinned
    python benchmarks/boundaries.py --all      # one line per probed entry
    python benchmarks/boundaries.py --needs    # the releases still to run, with the entries each pins
    python benchmarks/boundaries.py --json
    python benchmarks/boundaries.py --knowledge DIR   # another checkout's knowledge/

An entry is pinned on both sides when its probe's `observed_on` holds the last release before
`introduced` and the first release from `introduced` on (and, with `until`, the last release
before `until` and `until`'s first release). Where the earlier release lacks what the probe uses
(the probe's `since`), that side is pinned by absence only when a real run there showed it missing
(the probe's `absent_on`); the summary counts those apart. The release list is PyPI's, as `pip index versions
torch` showed it on 2026-12-01 (Linux x86_64 wheels, every Python).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange

TORCH_RELEASES = tuple(Version(v) for v in [
    "1.0.0", "1.0.1", "1.1.0", "1.2.0", "1.3.0", "1.3.1", "1.4.0", "1.5.0", "1.5.1", "1.6.0",
    "1.7.0", "1.7.1", "1.8.0", "1.8.1", "1.9.0", "1.9.1", "1.10.0", "1.10.1", "1.10.2", "1.11.0",
    "1.12.0", "1.12.1", "1.13.0", "1.13.1", "2.0.0", "2.0.1", "2.1.0", "2.1.1", "2.1.2", "2.2.0",
    "2.2.1", "2.2.2", "2.3.0", "2.3.1", "2.4.0", "2.4.1", "2.5.0", "2.5.1", "2.6.0", "2.7.0",
    "2.7.1", "2.8.0", "2.9.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.12.1", "2.13.0", "2.14.0",
    "2.14.1", "2.15.0",
])


@dataclass(frozen=True, slots=True)
class Boundary:
    id: str
    edge: str  # "introduced" or "until"
    before: str | None  # the last release without the change's state (None: no such release)
    after: str | None  # the first release with it
    before_pinned: bool
    after_pinned: bool
    note: str | None = None  # why a side cannot be pinned (the probe's `since`)
    absent: bool = False  # the earlier side is pinned by a real run that showed the probed API missing

    @property
    def pinned(self) -> bool:
        return self.before_pinned and self.after_pinned


def _around(edge: Version) -> tuple[Version | None, Version | None]:
    before = [r for r in TORCH_RELEASES if r < edge]
    after = [r for r in TORCH_RELEASES if r >= edge]
    return (before[-1] if before else None), (after[0] if after else None)


def boundaries(entry: SpecChange) -> list[Boundary]:
    assert entry.probe is not None
    seen = {Version(v) for v in entry.probe.observed_on}
    absent_on = {Version(v) for v in entry.probe.absent_on}
    edges = [("introduced", entry.introduced)] + ([("until", entry.until)] if entry.until else [])
    found = []
    for name, edge in edges:
        before, after = _around(edge)
        note = None
        # No release before the edge, or the probe cannot run there: that side has nothing to pin.
        before_pinned = before is None or before in seen
        absent = False
        if before is not None and entry.probe.since is not None and before < entry.probe.since:
            note = f"the probe needs {entry.probe.since}, after {before}"
            absent = before in absent_on
            before_pinned = before_pinned or absent
            if absent:
                note = f"{note}: absent there (a real run)"
        found.append(
            Boundary(
                entry.id,
                name,
                str(before) if before else None,
                str(after) if after else None,
                before_pinned,
                after is None or after in seen,
                note,
                absent,
            )
        )
    return found


def _series_pinned(b: Boundary, entry: SpecChange) -> bool:
    """The looser reading: any release of the minor series before and of the one at the edge."""
    assert entry.probe is not None
    series = {Version(v).release[:2] for v in entry.probe.observed_on}
    sides = [(b.before, b.before_pinned), (b.after, b.after_pinned)]
    return all(ok or (r is not None and Version(r).release[:2] in series) for r, ok in sides)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--all", action="store_true", help="list every probed entry")
    parser.add_argument("--needs", action="store_true", help="list the releases still to run")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--knowledge", type=Path, help="another knowledge directory (e.g. an older checkout's)"
    )
    args = parser.parse_args(argv)
    entries = [
        e
        for e in KnowledgeBase.load(args.knowledge).for_package("torch")
        if e.probe and not e.probe.skip
    ]
    rows = {e.id: boundaries(e) for e in entries}
    es = {e.id: e for e in entries}
    pinned = sorted(i for i, b in rows.items() if all(x.pinned for x in b))
    by_absence = sorted(i for i in pinned if any(x.absent for x in rows[i]))
    needs: dict[str, list[str]] = defaultdict(list)
    for entry_id, found in rows.items():
        for b in found:
            if not b.before_pinned and b.note is None:
                needs[str(b.before)].append(entry_id)
            if not b.after_pinned:
                needs[str(b.after)].append(entry_id)
    if args.json:
        print(
            json.dumps(
                {
                    "probed": len(rows),
                    "pinned": len(pinned),
                    "pinned_by_absence": len(by_absence),
                    "entries": [asdict(b) for found in rows.values() for b in found],
                    "needs": {
                        r: sorted(ids)
                        for r, ids in sorted(needs.items(), key=lambda kv: Version(kv[0]))
                    },
                },
                indent=2,
            )
        )
        return 0
    loose = sum(all(_series_pinned(b, es[i]) for b in found) for i, found in rows.items())
    print(
        f"probed torch entries: {len(rows)}; pinned on both sides: {len(pinned)}; not: {len(rows) - len(pinned)}"
    )
    print(
        f"(by real runs of the probe on both releases: {len(pinned) - len(by_absence)}; the earlier side"
        f" by a real run that showed the probed API absent: {len(by_absence)})"
    )
    print(f"(with any release of the two minor series as a witness: {loose})")
    if args.needs:
        for release, ids in sorted(needs.items(), key=lambda kv: Version(kv[0])):
            print(f"{release:8} {len(ids):3}  {' '.join(sorted(ids))}")
        return 0
    for entry_id, found in sorted(rows.items()):
        for b in found:
            if b.pinned and not args.all:
                continue
            sides = f"{b.before}{'' if b.before_pinned else ' (missing)'} | {b.after}{'' if b.after_pinned else ' (missing)'}"
            print(f"{entry_id:60} {b.edge:10} {sides}{'  ' + b.note if b.note else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
