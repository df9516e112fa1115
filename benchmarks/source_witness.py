"""A first, naive second witness: curated torch entries against the shipped harvest's candidates.

    python benchmarks/source_witness.py

For each curated entry of a kind the harvest can see (deprecated, removed, default-changed), the
candidates of a matching kind on one of its symbols are looked up. "agree": a candidate's release
is the entry's `introduced` (or `until`); "disagree": candidates exist, none at those releases;
"no candidate": the harvest saw nothing on the symbols (C++ warnings, behaviour changes, or names
the harvest spells differently). A disagreement is a lead to read, not yet a verdict: a symbol
can have several changes (a category change, a later removal) that the lookup cannot tell apart.
"""

from __future__ import annotations

from collections import defaultdict

from packaging.version import Version

from auditor.harvest.model import Candidate
from auditor.harvest.shipped import read_candidates
from auditor.knowledge import KnowledgeBase
from auditor.knowledge.loader import default_directory

KINDS = {
    "deprecated": {"deprecation-begins", "warning-category-changed"},
    "removed": {"symbol-removed", "removal-stub-added"},
    "default-changed": {"default-changed"},
}


def main() -> None:
    by_symbol: dict[str, list[Candidate]] = defaultdict(list)
    for c in read_candidates(default_directory(), "torch"):
        by_symbol[c.symbol].append(c)
    counts = {"agree": 0, "disagree": 0, "no candidate": 0}
    leads = []
    for e in KnowledgeBase.load().for_package("torch"):
        if e.kind not in KINDS:
            continue
        found = [c for s in e.symbols for c in by_symbol.get(s, []) if c.kind in KINDS[e.kind]]
        releases = sorted({Version(c.release) for c in found})
        edges = {e.introduced} | ({e.until} if e.until else set())
        state = "no candidate" if not found else "agree" if edges & set(releases) else "disagree"
        counts[state] += 1
        if state == "disagree":
            kinds = ", ".join(sorted({c.kind for c in found}))
            leads.append(f"{e.id:55} {e.introduced!s:7} harvest: {', '.join(map(str, releases))} ({kinds})")
    print("; ".join(f"{k}: {v}" for k, v in counts.items()))
    print("\n".join(leads))


if __name__ == "__main__":
    main()
