"""Recall and false alarms of the scanner on real packages, against labels made without it.

    python benchmarks/recall.py [--root DIR] [--auditor PATH]

The four packages of benchmarks/recall/labels.json (fairseq 0.12.2, allennlp 2.10.1,
speechbrain 0.5.13, pytorch-ignite 0.4.10: wheels from PyPI, `pip download --no-deps`, unpacked
under DIR when missing) are scanned for torch 1.10.0 -> 2.15.0, each by a process running
`python -m auditor scan --no-cache -f json` with PYTHONPATH set to --auditor (default: this
checkout). How the labels were made is in benchmarks/recall/README.md: every call whose name is
that of a crossed call matcher, true when the module's imports make it the matched function,
a look-alike otherwise; every `//` of fairseq by hand.

A labelled site (path, line, change) is found when a finding on that line names the change,
or names it among the earlier stages it merges, or among the other changes of its line (`also`,
each with its own confidence and stages). Sites of the name whose code rules the affected case out
(`unaffected`, each with why: a trusted hub repository, indices under `//`, a dead version branch)
are not counted, and printed with whether they are reported. A look-alike line is a false alarm when a
finding on it names a change the labels are about. Printed per package: sites, found (any
confidence and medium/high), look-alikes, false alarms, then each miss and false alarm.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LABELS = HERE / "recall" / "labels.json"


def prepare(root: Path, project: dict[str, object]) -> Path:
    target = root / str(project["name"])
    if target.exists():
        return target
    with tempfile.TemporaryDirectory() as download:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", download,
             *project["args"], str(project["pypi"])],  # type: ignore[misc]
            check=True,
        )
        (wheel,) = Path(download).glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
    for binary in target.rglob("*.so"):
        binary.unlink()
    return target


def scan(tree: Path, auditor: Path, transition: list[str]) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(auditor)}
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "scan", str(tree), "--from", transition[0], "--to", transition[1],
         "--no-cache", "-f", "json"],
        check=False, capture_output=True, text=True, env=env, cwd=auditor,  # `-m` reads the working directory first
    )
    if done.returncode not in (0, 1):
        sys.exit(f"auditor scan {tree} failed ({done.returncode}): {done.stderr}")
    findings: list[dict[str, object]] = json.loads(done.stdout)["findings"]
    return findings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "auditor-recall")
    parser.add_argument("--auditor", type=Path, default=HERE.parent)
    args = parser.parse_args()
    labels = json.loads(LABELS.read_text("utf-8"))
    about = {site[3] for site in labels["sites"]}
    totals = [0, 0, 0, 0, 0]
    print(f"{'package':24} {'sites':>6} {'found':>6} {'m/h':>6} {'alikes':>7} {'false':>6}")
    for project in labels["projects"]:
        name = project["name"]
        tree = prepare(args.root, project)
        findings = scan(tree, args.auditor, labels["transition"])
        found, confident, lines = set(), set(), set()
        for f in findings:
            # one row per call site: the other changes of the line are in `also`, each with its
            # own confidence and the earlier stages it merges
            for row in [f, *f.get("also", [])]:  # type: ignore[list-item]
                for change in [row["change"], *row.get("stages", [])]:
                    found.add((f["path"], f["line"], change))
                    if row["confidence"] != "low":
                        confident.add((f["path"], f["line"], change))
                if row["change"] in about:
                    lines.add((f["path"], f["line"]))
        sites = {(p, line, change) for n, p, line, change in labels["sites"] if n == name}
        alikes = {(p, line): what for n, p, line, what in labels["lookalikes"] if n == name}
        alarms = sorted(set(alikes) & lines)
        row = [len(sites), len(sites & found), len(sites & confident), len(alikes), len(alarms)]
        totals = [a + b for a, b in zip(totals, row)]
        print(f"{name:24} {row[0]:6} {row[1]:6} {row[2]:6} {row[3]:7} {row[4]:6}")
        for site in sorted(sites - found):
            print("    missed:", *site)
        for line in alarms:
            print("    false alarm:", *line, alikes[line])
        for _, path, line, change, why in (u for u in labels["unaffected"] if u[0] == name):
            said = "reported" if (path, line, change) in found else "not reported"
            print(f"    unaffected ({said}): {path} {line} {change}: {why}")
    sites, hit, confident, alikes, alarms = totals
    print(f"{'all':24} {sites:6} {hit:6} {confident:6} {alikes:7} {alarms:6}")
    print(f"recall {hit / sites:.3f} (medium/high {confident / sites:.3f}), false alarms {alarms / alikes:.3f} of look-alikes")


if __name__ == "__main__":
    main()
