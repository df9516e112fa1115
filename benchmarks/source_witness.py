"""The second witness, one line per curated entry: its release against the shipped harvest's.

    python benchmarks/source_witness.py [PACKAGE ...]          # default: torch numpy
    python benchmarks/source_witness.py torch --state "no candidate"

The check itself is `auditor kb coverage` (auditor/harvest/witness.py says which candidates count;
it fails on a disagreement); this prints every verdict, for a review.
"""

from __future__ import annotations

import argparse

from auditor.harvest.shipped import read_candidates
from auditor.harvest.witness import oldest_release, witness
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.loader import default_directory


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("packages", nargs="*", default=["torch", "numpy"])
    parser.add_argument("--state", help="only verdicts in this state")
    args = parser.parse_args()
    root = default_directory()
    kb = KnowledgeBase.load(root)
    for package in args.packages:
        candidates = read_candidates(root, package)
        w = witness(root, package, kb.entries, candidates, oldest_release(candidates))
        print(f"{package}: " + "; ".join(f"{state}: {n}" for state, n in w.totals().items()))
        for v in w.verdicts:
            if args.state is None or v.state == args.state:
                where = f" {v.symbol}: harvest {', '.join(v.releases)}" if v.symbol else ""
                print(f"  {v.state:15} {v.entry:55} {v.introduced:8}{where}")


if __name__ == "__main__":
    main()
