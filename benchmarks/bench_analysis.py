"""What the analysis of a file costs next to parsing it, steadier than whole-scan wall times.

    python benchmarks/bench_analysis.py [--tree DIR] [--every N] [--repeat N]

For every N-th file of the tree that the pre-filter lets through, it times `ast.parse`, the
resolver's walk (`Resolver`), the checker (`Checker.run`) and the module's facts for the
project's index (`feeds.facts`), keeps the fastest of `--repeat`
runs of each, per file, and prints their sums and the ratio analysis / parse. The cycle
collector is off, as it is while the scanner reads a file. The minimum per file sets aside
the machine's other load, which moves whole-scan wall times by a third.
"""

from __future__ import annotations

import argparse
import ast
import gc
import time
import warnings
from pathlib import Path

from bench_scan import DEFAULT_TREE, TRANSFORMERS, prepare
from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase
from auditor.pipeline import scan_changes
from auditor.scan.checker import Checker
from auditor.scan.discover import discover
from auditor.scan.feeds import facts
from auditor.scan.rules import RuleIndex, transition_ends


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE, help="sources to read (made when missing)")
    parser.add_argument("--every", type=int, default=4, help="take every N-th file")
    parser.add_argument("--repeat", type=int, default=5, help="runs per file; the fastest counts")
    parser.add_argument("--from", dest="from_version", default="1.10")
    parser.add_argument("--to", dest="to_version", default="2.15")
    args = parser.parse_args()
    prepare(args.tree, TRANSFORMERS)
    ends = transition_ends([("torch", Version(args.from_version), Version(args.to_version), None)])  # version guards read
    index = RuleIndex.build(scan_changes(KnowledgeBase.load(), "torch", args.from_version, args.to_version), ends=ends)
    warnings.simplefilter("ignore")
    sources = []
    for file in discover(args.tree).files[:: args.every]:
        if file.suffix != ".py":
            continue
        text = file.read_text("utf-8-sig", errors="replace")
        if index.could_match(text):
            try:
                ast.parse(text)
            except (SyntaxError, ValueError, RecursionError):
                continue
            sources.append(text)

    gc.disable()
    parse = resolve = check = feed = 0.0
    clock = time.perf_counter
    for text in sources:
        best = [float("inf")] * 4
        for _ in range(args.repeat):
            started = clock()
            tree = ast.parse(text)
            parsed = clock()
            checker = Checker(tree, index, "m.py", text)  # the resolver's walk happens here
            resolved = clock()
            checker.run()
            checked = clock()
            facts(checker.resolver, tree)
            fed = clock()
            best = [min(best[0], parsed - started), min(best[1], resolved - parsed), min(best[2], checked - resolved),
                    min(best[3], fed - checked)]
            del tree, checker
        parse, resolve, check, feed = parse + best[0], resolve + best[1], check + best[2], feed + best[3]
    gc.enable()
    print(f"{len(sources)} files: parse {parse:.3f} s, resolver walk {resolve:.3f} s, checker {check:.3f} s, "
          f"facts {feed:.3f} s; analysis / parse {(resolve + check + feed) / parse:.2f}")


if __name__ == "__main__":
    main()
