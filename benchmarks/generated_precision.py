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

    python benchmarks/generated_precision.py --candidates [--show-unlabelled]

scores the shipped torch candidates themselves instead: the sample is the 50 candidates in state
"generated" (what `--harvested` reports: no curated entry covers them, no waiver takes them) with
the smallest `sha256(CANDIDATE_SEED + ":" + id)`, each labelled by hand against the two wheels'
sources (`candidate_labels` in generated.json: `true` when the claim holds as written, with why).
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
CANDIDATE_SEED = "issue31"


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


def candidate_rank(candidate_id: str) -> str:
    return hashlib.sha256(f"{CANDIDATE_SEED}:{candidate_id}".encode()).hexdigest()


def candidates(show_unlabelled: bool) -> int:
    """The share of true claims among a seeded sample of the shipped generated torch candidates."""
    from auditor.harvest.coverage import coverage
    from auditor.knowledge.loader import default_directory, load_entries

    root = default_directory()
    standings = coverage(root, "torch", tuple(load_entries(root))).standings
    pool = [s.candidate for s in standings if s.state == "generated"]
    sample = sorted(pool, key=lambda c: candidate_rank(c.id))[:SAMPLE]
    labels = {l["id"]: l for l in json.loads(LABELS.read_text("utf-8")).get("candidate_labels", [])}
    marks: dict[str, list[bool]] = {}
    for c in sample:
        if c.id in labels:
            marks.setdefault(c.kind, []).append(bool(labels[c.id]["true"]))
    unlabelled = [c for c in sample if c.id not in labels]
    print(f"pool: {len(pool)} generated torch candidates; sample: {len(sample)}; unlabelled: {len(unlabelled)}")
    print(f"true: {share([m for kind in marks.values() for m in kind])}")
    for kind, kind_marks in sorted(marks.items()):
        print(f"  {kind}: {share(kind_marks)}")
    for c in sample:
        if c.id in labels and not labels[c.id]["true"]:
            print(f"  false: {c.id}: {labels[c.id]['why']}")
    if show_unlabelled:
        for c in unlabelled:
            print(f"\n### {c.id}\n{c.detail}")
            for e in c.evidence:
                print(f"  {e.release} {e.file}:{e.line}: {e.message}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "auditor-precision")
    parser.add_argument("--auditor", type=Path, default=HERE.parent, help="the checkout whose generator is measured")
    parser.add_argument("--show-unlabelled", action="store_true")
    parser.add_argument("--dump", type=Path, help="also write the sample's keys here, one JSON object a line")
    parser.add_argument("--candidates", action="store_true", help="score the shipped generated torch candidates")
    args = parser.parse_args()
    if args.candidates:
        return candidates(args.show_unlabelled)

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
