"""How many knowledge entries carry a mechanical fix (`[fix]`, issue 15), per package and mode.

    python benchmarks/fix_coverage.py              # the summary, per package
    python benchmarks/fix_coverage.py --missing    # and one line per rewritable entry without a fix
    python benchmarks/fix_coverage.py --json
    python benchmarks/fix_coverage.py --knowledge DIR   # another checkout's knowledge/

The denominator is the entries a rewrite could touch: those with at least one matcher of a shape
a transform can rewrite (a call or a reference, a method call, an operator, an import). Entries
that only match an assignment (`assign`), or have no matcher at all (environment and
interpreter changes), are counted apart. An entry counts as fixed when either mode has a
transform; `keep_old` and `adopt_new` are counted separately too, and so are the fixes whose
probe cannot be rewritten (`probe = false`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from auditor.knowledge.entry import Match, SpecChange
from auditor.knowledge.loader import read_knowledge


def rewritable(match: Match) -> bool:
    """Whether a transform can rewrite what this matcher finds."""
    return bool(match.call or match.method or match.operator or match.module)


@dataclass(frozen=True, slots=True)
class Coverage:
    package: str
    entries: int  # all entries of the package
    rewritable: int  # entries with a matcher a transform can rewrite: the denominator
    fixed: int  # of those, entries with a transform in either mode
    keep_old: int
    adopt_new: int
    probe_not_rewritable: int  # fixed entries whose [fix] says probe = false
    missing: tuple[str, ...]  # rewritable entries without a fix, by source path

    @property
    def percent(self) -> float:
        return 100.0 * self.fixed / self.rewritable if self.rewritable else 0.0


def coverage(entries: tuple[SpecChange, ...]) -> list[Coverage]:
    by_package: dict[str, list[SpecChange]] = defaultdict(list)
    for entry in entries:
        by_package[entry.package].append(entry)
    rows = []
    for package, group in sorted(by_package.items()):
        candidates = [e for e in group if any(rewritable(m) for m in e.matches)]
        fixed = [e for e in candidates if e.fix and (e.fix.keep_old or e.fix.adopt_new)]
        rows.append(Coverage(
            package=package,
            entries=len(group),
            rewritable=len(candidates),
            fixed=len(fixed),
            keep_old=sum(1 for e in fixed if e.fix and e.fix.keep_old),
            adopt_new=sum(1 for e in fixed if e.fix and e.fix.adopt_new),
            probe_not_rewritable=sum(1 for e in fixed if e.fix and not e.fix.probe),
            missing=tuple(sorted(e.source for e in candidates if e not in fixed)),
        ))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knowledge", type=Path, help="a knowledge directory (default: the shipped one)")
    parser.add_argument("--missing", action="store_true", help="list the rewritable entries without a fix")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = coverage(read_knowledge(args.knowledge).entries)
    if args.json:
        json.dump([{**asdict(r), "percent": round(r.percent, 1)} for r in rows], sys.stdout, indent=2)
        print()
        return 0
    for r in rows:
        print(
            f"{r.package}: {r.fixed} of {r.rewritable} entries with rewritable matchers have a fix "
            f"({r.percent:.0f} %; keep-old {r.keep_old}, adopt-new {r.adopt_new}; "
            f"{r.probe_not_rewritable} with a probe the engine cannot rewrite); "
            f"{r.entries - r.rewritable} more entries have no rewritable matcher"
        )
        if args.missing:
            for source in r.missing:
                print(f"  no fix: {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
