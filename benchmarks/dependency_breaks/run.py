"""Real dependency breaks of torch bumps (cases.toml), audited against the package index.

    python benchmarks/dependency_breaks/run.py [--cache DIR] [--only ID ...]

Each case is one locked package beside the torch a bump moves to. A `metadata` case passes when
the requirement check names the package and its requirement; a `code` case when the dependency
scan, with the knowledge base's changes crossed from the case's old torch to its new one, finds a
call in the named file (at the named line, or inside the named function). Needs the network
(wheels are read from PyPI, cached under --cache). Exit 1 when a case is missed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import tomllib
from packaging.version import Version

from auditor.dependencies.audit import scan_dependencies
from auditor.dependencies.metadata import Index
from auditor.dependencies.reach import Package
from auditor.dependencies.reader import Reader
from auditor.dependencies.requirements import check_requirements
from auditor.knowledge.base import KnowledgeBase
from auditor.models import Pin, Transition
from auditor.scan.project import ScanOptions

HERE = Path(__file__).resolve().parent


def run_case(case: dict[str, object], reader: Reader, kb: KnowledgeBase) -> tuple[bool, str]:
    old, new = (Version(str(v)) for v in case["torch"])  # type: ignore[attr-defined]
    pins = [Pin("torch", new, line=1), Pin(str(case["package"]), Version(str(case["version"])), line=2)]
    if case["kind"] == "metadata":
        checked = check_requirements(pins, reader, "requirements.txt")
        said = [f.message for f in checked.findings if f.package == case["package"]]
        hit = any(f"requires {case['requirement']}" in m for m in said)
        return hit, said[0] if said else f"no finding; unread: {checked.unread}"
    crossed = kb.crossed([Transition("torch", old, new)])
    scan = scan_dependencies(pins, reader, crossed, options=ScanOptions())
    if scan.unread:
        return False, f"not read: {scan.unread}"
    inside = [f.finding for f in scan.findings if f.finding.path == case["path"]]
    if "line" in case:
        inside = [f for f in inside if f.line == case["line"]]
    if "function" in case:
        tree = next((reader.cache / "dependencies" / "sources").glob(f"{case['package']}-{case['version']}-*"))
        package = Package(tree)
        inside = [f for f in inside
                  if (package.holding(f.path, f.line) or "").endswith(f".{case['function']}")]
    shown = ", ".join(f"{f.path}:{f.line} {f.change}" for f in inside[:3])
    return bool(inside), shown or f"{len(scan.findings)} findings, none at the case's call"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/auditor-dependency-breaks"))
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    cases = tomllib.loads((HERE / "cases.toml").read_text())["case"]
    reader, kb = Reader(Index(cache=args.cache), args.cache), KnowledgeBase.load()
    missed = 0
    for case in cases:
        if args.only and case["id"] not in args.only:
            continue
        start = time.perf_counter()
        hit, said = run_case(case, reader, kb)
        missed += not hit
        print(f"{'found ' if hit else 'MISSED'} {case['id']:38} {time.perf_counter() - start:5.1f}s  {said[:150]}")
    print(f"{len(cases) - missed if not args.only else '-'} of {len(cases)} found")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
