"""Gating precision on real bumps and real projects: of the findings that fail the exit code, how
many sit on a line that needs a change for the new version to behave as before; and whether every
labelled line that needs one gates. Run on demand, not in CI (it needs the repositories' snapshots).

    python benchmarks/precision_real.py [--mirrors /work/.mirror] [--root DIR] [--auditor PATH]
                                        [--only NAME ...] [--show-unlabelled]

The cases are in benchmarks/precision/real.json:

- `bumps`: ids of benchmarks/real_bumps/bumps.toml. Each is cloned from its snapshot
  (`<mirrors>/<owner>+<name>/repo`, as benchmarks/real_bumps/run.py does) and audited as its pull
  request was: `python -m auditor compare --git BASE..HEAD --format json --no-cache` in the clone.
- `projects`: a repository at a commit, whose Python files and notebooks are unpacked under DIR
  (`git archive`), scanned for one transition (`auditor scan --from OLD --to NEW`): the question a
  team asks of code it runs today before a larger upgrade.

Findings are keyed by case, path, line and change id (a site's `also` changes too) and scored
against the hand labels of real.json, made by the rule of docs/precision.md ("does the line need a
change for the new version to behave as before?"), each with its reason. A finding without a label
is counted and, with --show-unlabelled, printed with the code around it. The exit code is 1 when a
labelled line that needs a change does not gate.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

HERE = Path(__file__).resolve().parent
CASES = HERE / "precision" / "real.json"
BUMPS = HERE / "real_bumps" / "bumps.toml"
_spec = importlib.util.spec_from_file_location("real_bumps_run", HERE / "real_bumps" / "run.py")
assert _spec is not None and _spec.loader is not None
run_bumps = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = run_bumps  # its dataclasses look their module up
_spec.loader.exec_module(run_bumps)

Key = tuple[str, str, int, str]  # case, path, line, change


def audit(command: list[str], cwd: Path, auditor: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(auditor), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    try:
        findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    except (json.JSONDecodeError, KeyError):
        sys.exit(f"{' '.join(command)} in {cwd} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return findings


def bump_findings(bump: dict[str, Any], mirrors: Path, auditor: Path, keep: Path) -> list[dict[str, Any]]:
    """The findings of `compare --git` on the bump's range; the clone is left under `keep` for
    --show-unlabelled."""
    base, head = bump["range"].split("..")
    mirror = mirrors / bump["repo"].replace("/", "+") / "repo"
    if not mirror.is_dir():
        sys.exit(f"no snapshot at {mirror}: fetch github:{bump['repo']} first")
    clone = keep / bump["id"]
    if not clone.is_dir():
        subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(mirror), str(clone)],
                       capture_output=True, check=True)
        run_bumps.stand_in_for_missing(clone, [base, head])
        run_bumps.git(clone, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", head)
    command = [sys.executable, "-m", "auditor", "compare", "--git", f"{base}..{head}", "--format", "json", "--no-cache"]
    return audit(command, clone, auditor)


def project_findings(project: dict[str, Any], mirrors: Path, auditor: Path, root: Path) -> list[dict[str, Any]]:
    target = root / project["name"]
    if not target.is_dir():
        mirror = mirrors / project["repo"].replace("/", "+") / "repo"
        if not mirror.is_dir():
            sys.exit(f"no snapshot at {mirror}: fetch github:{project['repo']} first")
        names = run_bumps.git(mirror, "ls-tree", "-r", "--name-only", project["commit"]).splitlines()
        wanted = [n for n in names if n.endswith((".py", ".ipynb"))]
        target.mkdir(parents=True)
        with tempfile.TemporaryDirectory() as tmp:
            archive = Path(tmp) / "tree.tar"
            subprocess.run(["git", "--git-dir", str(mirror), "archive", "-o", str(archive), project["commit"], "--", *wanted],
                           check=True, capture_output=True)
            with tarfile.open(archive) as tar:
                tar.extractall(target, filter="data")
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "auditor", "scan", str(target), "--from", project["from"], "--to", project["to"],
                   "--no-cache", "--format", "json"]
        return audit(command, Path(tmp), auditor)


def context(source: Path, path: str, line: int, around: int = 6) -> str:
    if path.endswith(".ipynb"):
        return f"  (a notebook: open {path})"
    lines = (source / path).read_text("utf-8", errors="replace").splitlines()
    start = max(line - around, 1)
    return "\n".join(f"{'>' if n == line else ' '}{n:5} {lines[n - 1]}" for n in range(start, min(line + around, len(lines)) + 1))


def score(case: str, findings: list[dict[str, Any]], needs: dict[Key, bool]) -> tuple[list[bool], list[str], list[dict[str, Any]]]:
    """The labels of the gating sites (a site needs a change when one of its changes does), the
    labelled sites that need a change and do not gate, and the findings without a label."""
    gating, missed, unlabelled = [], [], []
    for f in findings:
        keys = [(case, f["path"], f["line"], c) for c in (f["change"], *(a["change"] for a in f.get("also", ())))]
        known = [needs[k] for k in keys if k in needs]
        if not known:
            unlabelled.append(f)
        elif f["gates"]:
            gating.append(any(known))
        elif any(known):
            missed.append(f"{f['path']}:{f['line']}")
    return gating, missed, unlabelled


def share(labels: list[bool]) -> str:
    if not labels:
        return "-"
    return f"{sum(labels)}/{len(labels)} = {100 * sum(labels) / len(labels):.0f} %"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "auditor-precision")
    parser.add_argument("--auditor", type=Path, default=HERE.parent, help="the checkout whose scanner is measured")
    parser.add_argument("--only", nargs="*", default=None, help="cases (bump ids, project names) to run")
    parser.add_argument("--show-unlabelled", action="store_true")
    args = parser.parse_args()

    data = json.loads(CASES.read_text("utf-8"))
    needs = {(lb["case"], lb["path"], lb["line"], lb["change"]): bool(lb["needs_change"]) for lb in data["labels"]}
    bumps = {b["id"]: b for b in tomllib.loads(BUMPS.read_text("utf-8"))["bump"]}
    clones = args.root / "bumps"
    clones.mkdir(parents=True, exist_ok=True)
    rows, missing = [], 0
    cases: list[tuple[str, str, Any]] = [("bump", i, bumps[i]) for i in data["bumps"]]
    cases += [("project", p["name"], p) for p in data["projects"]]
    for kind, name, case in cases:
        if args.only is not None and name not in args.only:
            continue
        if kind == "bump":
            findings, source = bump_findings(case, args.mirrors, args.auditor, clones), clones / name
            transition = case["range"][:7] + ".." + case["range"].split("..")[1][:7]
        else:
            findings, source = project_findings(case, args.mirrors, args.auditor, args.root), args.root / name
            transition = f"{case['from']} -> {case['to']}"
        gating, missed, unlabelled = score(name, findings, needs)
        missing += len(missed)
        rows.append((name, transition, len(findings), sum(1 for f in findings if f["gates"]), share(gating),
                     ", ".join(missed) or "none", len(unlabelled)))
        if args.show_unlabelled:
            for f in unlabelled:
                also = " also " + ",".join(a["change"] for a in f.get("also", ())) if f.get("also") else ""
                print(f"\n### {name} {f['path']}:{f['line']} {f['change']}{also} gates={f['gates']} {f['confidence']}")
                print(context(source, f["path"], f["line"]))
    header = ("case", "transition", "findings", "gating", "needs a change (gating)", "needs a change, not gating", "unlabelled")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
