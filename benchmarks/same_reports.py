"""Whether a change of the code leaves every report the same, byte for byte: the check for
restructuring that must not change behaviour.

    python benchmarks/same_reports.py record BASELINE.json [--code DIR] [--harness DIR]
    python benchmarks/same_reports.py check BASELINE.json [--code DIR] [--harness DIR]

Each case is one `python -m auditor ...` process (PYTHONPATH set to --code, default this
checkout; a fresh cache directory each) on the example project, on the real projects under
HARNESS/trees/ and on the real bumps under HARNESS/bumps/<id> (clones of the real-bump benchmark's
snapshots, HEAD checked out; `prepare` makes them). `record` writes each case's exit code and the
SHA-256 of its standard output; `check` runs them again and names every case that differs, with
the first differing line. Exit 1 when one differs. Cases whose inputs are missing are listed as
not run, never passed.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "real_bumps"))
from run import stand_in_for_missing

CHECKOUT = HERE.parent
BUMPS = ["applio-dependabot-plain", "joligen-torch2", "tgi-monorepo-uv-cuda", "lightspeed-service-pdm-to-uv",
         "coral-poetry-to-uv", "cua-monorepo-two-uv-locks", "anomalib-renovate-uv-extras", "surya-poetry",
         "python-examples-pipfile-categories", "tomotwin-conda", "llava-pyproject-pins", "cosmos-xenna-uv-big-jump"]
TREES = {"pytorch-examples": ("1.12.1", "2.6.0"), "timm-0.6.12": ("1.12.1", "2.6.0"),
         "pytorch-lightning-1.8.6": ("1.13.1", "2.6.0")}
EXAMPLE = ["examples/requirements-old.txt", "examples/requirements-new.txt", "--project", "examples/project"]


def cases(harness: Path) -> dict[str, tuple[Path, list[str]]]:
    """Name -> (working directory, arguments after `python -m auditor`)."""
    out: dict[str, tuple[Path, list[str]]] = {}
    for fmt in ("text", "json", "markdown", "sarif", "github"):
        out[f"example compare {fmt}"] = (CHECKOUT, ["compare", *EXAMPLE, "-f", fmt])
    for fmt in ("text", "json", "markdown", "sarif"):
        out[f"example scan {fmt}"] = (CHECKOUT, ["scan", "examples/project", "--from", "1.12.1", "--to", "2.6.0",
                                                 "-f", fmt])
    out["example compare warnings"] = (CHECKOUT, ["compare", *EXAMPLE, "--fail-on-warnings", "-f", "json"])
    out["example fix keep-old"] = (CHECKOUT, ["fix", *EXAMPLE, "--keep-old"])
    out["example fix adopt-new"] = (CHECKOUT, ["fix", *EXAMPLE, "--adopt-new"])
    for fmt in ("text", "json", "markdown"):
        out[f"example plan {fmt}"] = (CHECKOUT, ["plan", "examples/project", "--lock", "examples/requirements-old.txt",
                                                 "-f", fmt])
    out["lock show"] = (CHECKOUT, ["lock", "show", "examples/requirements-new.txt"])
    out["lock diff"] = (CHECKOUT, ["lock", "diff", "examples/requirements-old.txt", "examples/requirements-new.txt"])
    out["kb list"] = (CHECKOUT, ["kb", "list", "--from", "1.12.1", "--to", "2.6.0"])
    out["kb list json"] = (CHECKOUT, ["kb", "list", "--from", "1.9", "--to", "2.13", "-f", "json"])
    out["kb show"] = (CHECKOUT, ["kb", "show", "torch-floor-divide-rounding"])
    out["kb coverage"] = (CHECKOUT, ["kb", "coverage"])
    for name, (old, new) in TREES.items():
        for fmt in ("text", "json", "markdown"):
            out[f"tree {name} {fmt}"] = (harness / "trees" / name,
                                        ["scan", ".", "--from", old, "--to", new, "-f", fmt])
    for bump in BUMPS:
        clone = harness / "bumps" / bump
        base, head = (clone / ".git" / "auditor-range").read_text().split() if clone.is_dir() else ("", "")
        for fmt in ("text", "json", "markdown"):
            out[f"bump {bump} {fmt}"] = (clone, ["compare", "--git", f"{base}..{head}", "-f", fmt])
    return out


def run(code: Path, cwd: Path, args: list[str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="same-reports-") as cache:
        done = subprocess.run([sys.executable, "-m", "auditor", *args, "--cache-dir", cache] if args[0] in (
            "compare", "scan", "fix", "plan") else [sys.executable, "-m", "auditor", *args],
            cwd=cwd, capture_output=True, check=False, timeout=900,
            env={**os.environ, "PYTHONPATH": str(code), "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"})
    return {"exit": done.returncode, "sha256": hashlib.sha256(_steady(done.stdout)).hexdigest(),
            "stdout": done.stdout.decode("utf-8", "replace")}


def _steady(out: bytes) -> bytes:
    """The output without the random names of temporary checkouts, which differ from run to run."""
    return re.sub(rb"/tmp/auditor-git-(?:[A-Za-z0-9]|\\?_)+/", b"/tmp/auditor-git-RANDOM/", out)


def prepare(harness: Path, mirrors: Path) -> None:
    """Clone the chosen real bumps once, HEAD checked out, the range written beside."""
    bumps = {b["id"]: b for b in tomllib.loads((HERE / "real_bumps" / "bumps.toml").read_text())["bump"]}
    for name in BUMPS:
        clone = harness / "bumps" / name
        if clone.is_dir():
            continue
        bump = bumps[name]
        base, head = bump["range"].split("..")
        mirror = mirrors / bump["repo"].replace("/", "+") / "repo"
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(clone)], check=True)
        stand_in_for_missing(clone, [base, head])  # blobs the snapshot lacks: a one-line placeholder
        subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", "-f", head], cwd=clone,
                       check=True)
        (clone / ".git" / "auditor-range").write_text(f"{base} {head}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("record", "check", "prepare"))
    parser.add_argument("baseline", type=Path, nargs="?")
    parser.add_argument("--code", type=Path, default=CHECKOUT)
    parser.add_argument("--harness", type=Path, default=Path("/work/harness"))
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--only", help="run the cases whose name contains this")
    args = parser.parse_args()
    if args.action == "prepare":
        prepare(args.harness, args.mirrors)
        return 0
    recorded = json.loads(args.baseline.read_text()) if args.action == "check" else {}
    for case in recorded.values():  # baselines recorded before the names were steadied
        case["sha256"] = hashlib.sha256(_steady(str(case["stdout"]).encode())).hexdigest()
    results: dict[str, dict[str, object]] = {}
    differ = 0
    for name, (cwd, argv) in cases(args.harness).items():
        if args.only and args.only not in name:
            continue
        if not cwd.is_dir():
            print(f"NOT RUN   {name}: {cwd} is missing")
            differ += 1
            continue
        results[name] = run(args.code.resolve(), cwd, argv)
        if args.action == "check":
            before = recorded.get(name)
            same = before is not None and before["sha256"] == results[name]["sha256"] \
                and before["exit"] == results[name]["exit"]
            print(f"{'same' if same else 'DIFFERENT':9} {name}")
            if not same:
                differ += 1
                if before is not None:
                    lines = difflib.unified_diff(str(before["stdout"]).splitlines(),
                                                 str(results[name]["stdout"]).splitlines(), lineterm="", n=0)
                    print("\n".join(f"    {line}" for line in list(lines)[:12]))
                    print(f"    exit {before['exit']} -> {results[name]['exit']}")
    if args.action == "record":
        args.baseline.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(results)} cases")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
