"""Precision of the changes generated from the shipped harvest (`scan --harvested`): of the
findings only a generated change makes, how many a reviewer must act on. Run on demand, not in
CI (it scans the four projects of benchmarks/precision.py, and the projects generated.json adds,
each prepared the same way).

    python benchmarks/generated_precision.py [--root DIR] [--auditor PATH] [--show-unlabelled]

Each project is scanned with `--harvested` for each transition in
benchmarks/precision/generated.json (a project generated.json adds names its own transitions:
transformers 5.18.0, scanned 1.10.0 -> 2.15.0 as issue 12 asks). The pool is every distinct (project, path, line, change) a
generated change (`"source": "harvested"`) reports; the sample is the 50 of the pool with the
smallest `sha256("issue12:" + project|path|line|change)`, a random sample that stays the same
when the code changes. Labels follow docs/precision.md's rule.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from precision import HERE, Key, context, prepare, share  # the same projects, prepared the same way

LABELS = HERE / "precision" / "generated.json"
SAMPLE = 50


def scan(source: Path, old: str, new: str, auditor: Path) -> list[Key]:
    """The findings of generated changes, keyed as the labels are."""
    env = {**os.environ, "PYTHONPATH": str(auditor)}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "auditor", "scan", str(source), "--from", old, "--to", new, "--harvested",
                   "--no-cache", "-f", "json", "-o", str(report), "--fail-on", "none"]
        done = subprocess.run(command, check=False, env=env, cwd=tmp, capture_output=True, text=True)
        if not report.exists():
            sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
        data = json.loads(report.read_text("utf-8"))
    generated = {c["id"] for c in data["changes"] if c.get("source") == "harvested"}
    return [Key.of(source.name, f) for f in data["findings"] if f["change"] in generated]


def rank(key: Key) -> str:
    return hashlib.sha256(f"issue12:{key.project}|{key.path}|{key.line}|{key.change}".encode()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "auditor-precision")
    parser.add_argument("--auditor", type=Path, default=HERE.parent, help="the checkout whose generator is measured")
    parser.add_argument("--show-unlabelled", action="store_true")
    parser.add_argument("--dump", type=Path, help="also write the sample's keys here, one JSON object a line")
    args = parser.parse_args()

    data = json.loads(LABELS.read_text("utf-8"))
    projects = json.loads((HERE / "precision" / "labels.json").read_text("utf-8"))["projects"]
    projects = [*projects, *data.get("projects", [])]
    labels = {Key(l["project"], l["path"], l["line"], l["change"]): bool(l["actionable"]) for l in data["labels"]}
    pool: dict[Key, None] = {}
    sources = {}
    for project in projects:
        source = prepare(args.root, project)
        sources[project["name"]] = source
        for old, new in project.get("transitions", data["transitions"]):
            found = scan(source, old, new, args.auditor)
            pool.update(dict.fromkeys(found))
            print(f"{project['name']} {old} -> {new}: {len(found)} findings of generated changes")
    sample = sorted(pool, key=rank)[:SAMPLE]
    unlabelled = [k for k in sample if k not in labels]
    if args.dump:
        args.dump.write_text("".join(json.dumps(asdict(k)) + "\n" for k in sample), "utf-8")
    kinds: dict[str, list[bool]] = {}
    for k in sample:
        if k in labels:
            kinds.setdefault(k.change.split(":")[1], []).append(labels[k])
    print(f"pool: {len(pool)} distinct findings; sample: {len(sample)}; unlabelled: {len(unlabelled)}")
    print(f"actionable: {share([labels[k] for k in sample if k in labels])}")
    for kind, marks in sorted(kinds.items()):
        print(f"  {kind}: {share(marks)}")
    if args.show_unlabelled:
        for key in unlabelled:
            print(f"\n### {key.project} {key.path}:{key.line} {key.change}\n{context(sources[key.project], key)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
