"""Whether two versions of the scanner find the same call sites: a check for changes that only
make the scan faster.

    python benchmarks/same_findings.py OLD NEW TREE [TREE ...] [--from 1.10] [--to 2.15]

OLD and NEW are folders holding an `auditor/` and a `knowledge/` (a checkout, or `git archive
REV | tar -x -C DIR`). Each tree is scanned by each version (`auditor scan --no-cache -f json`,
one process each, PYTHONPATH set to the version) and the findings and skipped files, each list
sorted, are compared byte for byte. Exit 1 when a tree differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path


def report(code: Path, tree: Path, args: argparse.Namespace) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "auditor", "scan", str(tree), "--from", args.from_version, "--to", args.to_version,
         "--format", "json", "--fail-on", "none", "--no-cache"],
        capture_output=True, env={**os.environ, "PYTHONPATH": str(code)}, cwd=code, check=True,
    )
    data = json.loads(run.stdout)
    return json.dumps({key: sorted(data[key], key=lambda item: json.dumps(item, sort_keys=True))
                       for key in ("findings", "skipped")}, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--from", dest="from_version", default="1.10")
    parser.add_argument("--to", dest="to_version", default="2.15")
    args = parser.parse_args()
    differ = False
    for tree in args.trees:
        old, new = report(args.old.resolve(), tree.resolve(), args), report(args.new.resolve(), tree.resolve(), args)
        count = len(json.loads(new)["findings"])
        print(f"{tree}: {count} findings, {'identical' if old == new else 'DIFFERENT'}")
        differ |= old != new
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
