"""Fuzz the shipped fixes over call shapes, on real builds: count the rewrites that raise where
the original call did not (the variants and runs: auditor/fix/shapes.py).

    python benchmarks/fixfuzz.py --old ~/.cache/auditor/envs/torch-1.12.1-py3.10/bin/python
    python benchmarks/fixfuzz.py --json --entry torch-lu-deprecated
    python benchmarks/fixfuzz.py --package numpy --old <a python with numpy 1.26>
    python benchmarks/fixfuzz.py --knowledge DIR    # another checkout's knowledge/
    python benchmarks/fixfuzz.py --shapes           # per transform: the shapes that ran
    python benchmarks/fixfuzz.py --sides ~/.cache/auditor/envs/*/bin/python --json

For every entry of the package (torch unless --package) with a `[fix]` and a probe, each call
site the entry's matchers find in the probe is varied (keywords present and absent, positional
and keyword forms, the listed values); each variant is rewritten by the engine in each mode.
The original runs on the old build (`--old`) and on this interpreter (the new build); the
rewrite runs on this interpreter. A rewrite "raises where the original did not" when the
original ran on at least one build and the rewrite raised here, other than the original raised
here. Variants the engine leaves alone are counted apart, with their reason kinds.

`--sides PYTHON...` runs each entry on the builds nearest its change instead: among the given
interpreters (and this one), the originals on the newest build before the change and the
rewrites on the oldest build in it; an entry with no build on one side is listed as unrun.

`--shapes` prints, per transform, what its rewritten variants show: the most positional
arguments and the keywords given where the original ran and the rewrite did not raise, and
the keywords (with values) where the rewrite raised: the evidence for its `max_positional`,
`proven_keywords` and `proven_values`.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path

from packaging.version import Version

from auditor.fix.shapes import ShapeCase, installed, shape_cases
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange


def by_sides(
    chosen: list[SpecChange], pythons: list[str]
) -> tuple[list[ShapeCase], dict[str, str], dict[str, str]]:
    """Each entry run on the builds nearest its change: the newest before it (the original's
    side) and the oldest in it (the rewrite's); an entry with no build before its change on the
    oldest build and the newest one, both past it. Returns the cases and, per entry, why it
    was left unrun or run past its change only."""
    package = chosen[0].package if chosen else "torch"
    builds: dict[Version, str] = {}
    for python in dict.fromkeys([sys.executable, *pythons]):
        version = installed(python, package)
        if version is not None:
            builds.setdefault(version, python)
    pairs: dict[tuple[str, str], list[SpecChange]] = defaultdict(list)
    unrun: dict[str, str] = {}
    past: dict[str, str] = {}
    known = ", ".join(map(str, sorted(builds)))
    for entry in chosen:
        before = [v for v in sorted(builds) if not entry.active(v) and v < entry.introduced]
        inside = [v for v in sorted(builds) if entry.active(v)]
        if not inside:
            unrun[entry.id] = f"no build in the change ({entry.introduced}) among {known}"
            continue
        if not before:
            past[entry.id] = f"no build before the change ({entry.introduced}) among {known}: run on {inside[0]} and {inside[-1]}"
            pairs[(builds[inside[0]], builds[inside[-1]])].append(entry)
            continue
        pairs[(builds[before[-1]], builds[inside[0]])].append(entry)
    found: list[ShapeCase] = []
    for (old, new), entries in sorted(pairs.items()):
        print(f"{old} -> {new}: {len(entries)} entries", file=sys.stderr)
        try:
            found += shape_cases(entries, old, new)
        except OSError as exc:  # an environment gone meanwhile
            unrun.update(dict.fromkeys((e.id for e in entries), f"{old} or {new} could not run: {exc}"))
    return found, unrun, past


def _shape(call: str) -> tuple[int, dict[str, str]]:
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    return len(node.args), {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg is not None}


def evidence(found: list[ShapeCase]) -> dict[str, dict[str, object]]:
    """Per transform (`entry [mode] #index`): the positional counts and keywords of the shapes
    that ran, and those of the shapes that raised."""
    groups: dict[str, list[ShapeCase]] = defaultdict(list)
    for c in found:
        if c.transform is not None and c.original_ran:
            groups[f"{c.entry} [{c.mode}] #{c.transform}"].append(c)
    shown: dict[str, dict[str, object]] = {}
    for key, cases in sorted(groups.items()):
        ran = [_shape(c.call) for c in cases if not c.raises]
        raised = [_shape(c.call) for c in cases if c.raises]
        shown[key] = {
            "max_positional": max((n for n, _ in ran), default=None),
            "keywords": sorted({k for _, kws in ran for k in kws}),
            "raised": sorted({f"{n} positional, " + ", ".join(f"{k}={v}" for k, v in sorted(kws.items())) for n, kws in raised}),
        }
    return shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", help="an interpreter with an older release of the package (the original's side)")
    parser.add_argument("--package", default="torch")
    parser.add_argument("--entry", action="append", default=[], help="only these entries")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--shapes", action="store_true", help="per transform, the shapes that ran and those that raised")
    parser.add_argument("--knowledge", type=Path, help="another checkout's knowledge/")
    parser.add_argument("--sides", nargs="+", default=[], help="interpreters with builds of the package: run each entry on those nearest its change")
    options = parser.parse_args()
    kb = KnowledgeBase.load(options.knowledge)
    chosen = [e for e in kb.entries if e.package == options.package and e.fix is not None and e.probe is not None and (not options.entry or e.id in options.entry)]
    unrun: dict[str, str] = {}
    past: dict[str, str] = {}
    if options.sides:
        found, unrun, past = by_sides(chosen, options.sides)
    else:
        found = shape_cases(chosen, options.old)
    if options.json or options.shapes:
        cases = [asdict(c) | {"raises": c.raises, "status": c.status} for c in found]
        shown = evidence(found) if options.shapes else ({"cases": cases, "unrun": unrun, "past": past} if options.sides else cases)
        print(json.dumps(shown, indent=1, sort_keys=True))
        return 0
    rewritten = [c for c in found if c.rewritten is not None]
    left = Counter(c.left_kind for c in found if c.rewritten is None)
    print(f"entries: {len({c.entry for c in found})} of {len(chosen)}; variants x modes: {len(found)}; rewritten: {len(rewritten)}; "
          f"left alone: {sum(left.values())} ({', '.join(f'{k} {n}' for k, n in sorted(left.items(), key=str))})")
    ran = [c for c in rewritten if c.original_ran]
    print(f"rewritten where the original ran: {len(ran)}; the rewrite raised: {sum(c.raises for c in ran)}; "
          f"original did not run on either build: {len(rewritten) - len(ran)}")
    for entry_id, why in sorted(unrun.items()):
        print(f"UNRUN {entry_id}: {why}")
    for entry_id, why in sorted(past.items()):
        print(f"PAST {entry_id}: {why}")
    for c in found:
        if c.raises:
            print(f"RAISES {c.entry} [{c.mode}] {c.call}\n    -> {c.rewritten}\n    {c.rewrite_new}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
