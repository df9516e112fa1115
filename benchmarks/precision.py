"""Report precision on real projects: of the findings `auditor scan` reports, how many a reviewer
must look at. Run on demand, not in CI (it downloads and scans four projects).

    python benchmarks/precision.py [--root DIR] [--auditor PATH] [--show-unlabelled]

The projects and their pinned versions are in benchmarks/precision/labels.json. Three come from
PyPI (`pip download --no-deps`, unpacked under DIR when missing); pytorch/examples is not on
PyPI: DIR/pytorch-examples must hold a checkout of the commit named there
(`git archive <commit> | tar -x -C DIR/pytorch-examples`).

Each project is scanned for each transition (a process running `python -m auditor scan --no-cache
-f json`, with PYTHONPATH set to --auditor, default this checkout, so an older checkout can be
measured with the same labels). The findings are scored against the labels, keyed by project,
path, line and change id; the rule for labelling is docs/precision.md. Confident (medium, high)
findings are scored all, or on the labelled sample where a project has more than 100 (per
transition, the 100 findings of main at d9765b0 with the smallest hash of their key: a random
sample that stays the same); low-confidence findings are scored apart, all labelled. A finding without a label is counted and,
with --show-unlabelled, printed with the code around it, to be labelled.

Besides the table, the script checks the must-keep lines (the 17 `torch.load` calls of
pytorch/examples): each one missing from the findings is printed, and the exit code is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LABELS = HERE / "precision" / "labels.json"
NEEDS_CHANGE = HERE / "precision" / "needs_change.json"  # does the line need a change to behave as before?
CONFIDENT = ("medium", "high")


@dataclass(frozen=True)
class Key:
    project: str
    path: str
    line: int
    change: str

    @classmethod
    def of(cls, project: str, finding: dict[str, object]) -> Key:
        return cls(project, str(finding["path"]), int(finding["line"]), str(finding["change"]))  # type: ignore[call-overload]


def prepare(root: Path, project: dict[str, Any]) -> Path:
    """The project's sources under root, downloaded and unpacked when missing."""
    target: Path = root / project["name"]
    if target.exists():
        return target
    if "pypi" not in project:
        sys.exit(f"{target}: missing; check out {project['repository']} at {project['commit']} there")
    with tempfile.TemporaryDirectory() as tmp:
        binary = ["--no-binary", ":all:"] if project.get("sdist") else ["--only-binary", ":all:"]
        if "python" in project:  # a wheel built only for older Pythons (torchvision 0.14: cp37 .. cp310)
            binary += ["--python-version", project["python"]]
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", *binary, "-d", tmp, project["pypi"]],
            check=True,
        )
        (archive,) = Path(tmp).iterdir()
        target.mkdir(parents=True)
        if archive.suffix == ".whl":
            with zipfile.ZipFile(archive) as whl:
                whl.extractall(target)
        else:
            with tarfile.open(archive) as sdist:
                sdist.extractall(target, filter="data")
    return target


def scan(source: Path, old: str, new: str, auditor: Path) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(auditor)}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "auditor", "scan", str(source), "--from", old, "--to", new,
                   "--no-cache", "-f", "json", "-o", str(report)]  # the default gate: `gates` as a CI run sees it
        done = subprocess.run(command, check=False, env=env, cwd=tmp, capture_output=True, text=True)
        if not report.exists():
            sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
        findings: list[dict[str, object]] = json.loads(report.read_text("utf-8"))["findings"]
    return findings


def context(source: Path, key: Key, around: int = 6) -> str:
    lines = (source / key.path).read_text("utf-8", errors="replace").splitlines()
    start = max(key.line - around, 1)
    shown = [f"{'>' if n == key.line else ' '}{n:5} {lines[n - 1]}" for n in range(start, min(key.line + around, len(lines)) + 1)]
    return "\n".join(shown)


def gating(project: str, findings: list[dict[str, Any]], needs: dict[Key, bool],
           sample: set[Key] | None) -> tuple[int, str, str]:
    """Of the findings that fail the exit code (`gates`), how many need a change for the new
    version to behave as before (a site needs one when one of its changes, `change` or `also`,
    does); and the labelled sites that need one but do not gate. `sample`: only these keys."""
    scored, missed = [], []
    for f in findings:
        keys = [Key(project, f["path"], f["line"], c) for c in (f["change"], *(a["change"] for a in f.get("also", ())))]
        if sample is not None and keys[0] not in sample:
            continue
        known = [needs[k] for k in keys if k in needs]
        if f.get("gates"):
            if known:
                scored.append(any(known))
        elif any(known):
            missed.append(f"{f['path']}:{f['line']}")
    return sum(1 for f in findings if f.get("gates")), share(scored), ", ".join(missed) or "none"


def share(labels: list[bool]) -> str:
    if not labels:
        return "-"
    return f"{sum(labels)}/{len(labels)} = {100 * sum(labels) / len(labels):.0f} %"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "auditor-precision")
    parser.add_argument("--auditor", type=Path, default=HERE.parent, help="the checkout whose scanner is measured")
    parser.add_argument("--show-unlabelled", action="store_true")
    args = parser.parse_args()

    data = json.loads(LABELS.read_text("utf-8"))
    labels = {Key(l["project"], l["path"], l["line"], l["change"]): bool(l["actionable"]) for l in data["labels"]}
    needs = {key: False for key, actionable in labels.items() if not actionable}  # not actionable: no change needed
    needs.update({Key(l["project"], l["path"], l["line"], l["change"]): bool(l["needs_change"])
                  for l in json.loads(NEEDS_CHANGE.read_text("utf-8"))["labels"]})
    gate_rows = []
    # per transition, the (project, path, line, change) of the sample of each sampled project
    sampled = {t: {Key(*k) for k in keys} for t, keys in data["sample"].items()}
    missing_must = 0
    rows = []
    for project in data["projects"]:
        source = prepare(args.root, project)
        for old, new in data["transitions"]:
            findings = scan(source, old, new, args.auditor)
            confident = [Key.of(project["name"], f) for f in findings if f["confidence"] in CONFIDENT]
            low = [Key.of(project["name"], f) for f in findings if f["confidence"] not in CONFIDENT]
            is_sampled = project["name"] in data["sampled_projects"]
            scored = [k for k in confident if k in sampled[f"{old} -> {new}"]] if is_sampled else confident
            unlabelled = [k for k in [*scored, *low] if k not in labels]
            rows.append((
                project["name"], f"{old} -> {new}", len(confident), len(scored),
                share([labels[k] for k in scored if k in labels]), len(low),
                share([labels[k] for k in low if k in labels]), len(unlabelled),
            ))
            if args.show_unlabelled:
                for key in unlabelled:
                    print(f"\n### {key.project} {key.path}:{key.line} {key.change}\n{context(source, key)}")
            gate_rows.append((project["name"], f"{old} -> {new}", *gating(project["name"], findings, needs,
                                                                             sampled[f"{old} -> {new}"] if is_sampled else None)))
            found = {(k.path, k.line, k.change) for k in (Key.of(project["name"], f) for f in findings)}
            for path, line, change in data["must_keep"].get(project["name"], []):
                if (path, line, change) not in found:
                    missing_must += 1
                    print(f"lost: {project['name']} {old} -> {new} {path}:{line} {change}")
    header = ("project", "transition", "confident", "scored", "actionable (confident)", "low", "actionable (low)", "unlabelled")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
    print(f"must-keep lines lost: {missing_must}\n")
    header = ("project", "transition", "gating", "needs a change (gating)", "needs a change, not gating")
    widths = [max(len(str(r[i])) for r in [header, *gate_rows]) for i in range(len(header))]
    for row in [header, *gate_rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
    return 1 if missing_must else 0


if __name__ == "__main__":
    raise SystemExit(main())
