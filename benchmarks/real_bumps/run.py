"""How `compare --git` reads real torch bumps: the transitions it reports against hand labels.

    python benchmarks/real_bumps/run.py [--mirrors /work/.mirror] [--only ID ...] [--json FILE]

Each bump of `bumps.toml` names a public repository, a range `BASE..HEAD` and the transitions a
reader finds in its lock files. The repository's snapshot (`<mirrors>/<owner>+<name>/repo`, a bare
git directory) is cloned with `--shared` into a temporary folder, never written to, HEAD checked
out, and `python -m auditor compare --git BASE..HEAD --format json` runs there (the auditor found on
PYTHONPATH). Snapshots lack files of 4 MiB and more: each blob missing from either commit is
replaced in the clone (`git replace`) by a one-line placeholder, and a bump whose labelled lock
file is such a blob is skipped with a line saying so.

Each labelled transition is then
- right: reported with the same package, versions (local label included) and direction, and, when
  the label names a variant, an environment matching the label's `env` pattern;
- wrong: not right, but the package is reported for that variant with other versions or another
  direction, or with these versions for another environment (or none);
- missed: the package is not reported for that variant at all.
A reported torch, torchvision or torchaudio transition no label claims is extra (`unchanged` ones,
and other packages' transitions, are listed apart).

A bump may also state the environment findings it expects, as a count per kind
(`environment = { cuda-major-changed = 1 }`; `environment = {}`: none). Its reported findings
are then graded by kind: up to the count right, beyond it extra (a false red: a finding nobody
would act on), short of it missed. A bump that states nothing is not graded on them. Green is a report whose `verdict` is `pass`
(exit 0, and nothing crossed left unchecked; a report without the key: exit 0): a bump that moves
torch must never be green. Exit 0 with the verdict `unchecked` is counted apart.

Exit 0 when every bump ran, every labelled transition is right, no expected environment
finding is missed and no torch bump is green; 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

HERE = Path(__file__).resolve().parent
FAMILY = (
    "torch",
    "torchvision",
    "torchaudio",
)  # what the labels cover; other packages are listed apart
PLACEHOLDER = b"placeholder: this file is missing from the repository snapshot\n"


@dataclass(frozen=True, slots=True)
class Label:
    package: str
    old: str | None
    new: str | None
    variant: str  # "default" or a short human name
    env: str | None  # a pattern the reported environment must match (case-insensitive search)
    stated: str | None = None  # the direction, when the versions alone do not give it ("unpinned")

    @property
    def direction(self) -> str:
        if self.stated:
            return self.stated
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        old, new = Version(self.old).release, Version(self.new).release
        return "upgrade" if new > old else "downgrade" if new < old else "unchanged"

    def text(self) -> str:
        where = "" if self.variant == "default" else f" [{self.variant}]"
        return f"{self.package} {self.old or '-'} -> {self.new or '-'}{where}"


@dataclass(slots=True)
class Outcome:
    id: str
    repo: str
    range: str
    status: str = "run"  # run | skipped | error
    reason: str = ""
    exit_code: int | None = None
    seconds: float = 0.0
    moves_torch: bool = False
    green: bool = False  # verdict pass: exit 0 and nothing crossed left unchecked
    verdict: str = ""  # the report's verdict: pass, unchecked or fail
    findings: int = 0  # call sites reported
    environment: int = 0  # environment findings reported (compatibility, beyond-knowledge)
    right: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)  # transitions of packages outside FAMILY
    # environment findings, where the bump states the ones it expects
    environment_graded: bool = False
    environment_right: list[str] = field(default_factory=list)
    environment_missed: list[str] = field(default_factory=list)
    environment_extra: list[str] = field(default_factory=list)
    skipped_files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)


def labels_of(bump: dict[str, Any]) -> list[Label]:
    return [
        Label(
            t["package"],
            t.get("from") or None,
            t.get("to") or None,
            t.get("variant", "default"),
            t.get("env"),
            t.get("direction"),
        )
        for t in bump.get("transitions", [])
    ]


def same_version(label: str | None, reported: str | None) -> bool:
    if label is None or reported is None:
        return label is reported
    try:
        return Version(label) == Version(reported)
    except InvalidVersion:
        return label == reported


def fits_variant(label: Label, reported: dict[str, Any]) -> bool:
    if reported["package"] != label.package:
        return False
    return (
        label.env is None
        or re.search(label.env, where_reported(reported), re.IGNORECASE) is not None
    )


def where_reported(t: dict[str, Any]) -> str:
    """The variant's short name where the report gives one, then the marker it stands for."""
    return " | ".join(str(t[key]) for key in ("variant", "environment") if t.get(key))


def shown(t: dict[str, Any]) -> str:
    where = f" [{where_reported(t)}]" if where_reported(t) else ""
    return (
        f"{t['package']} {t.get('from') or '-'} -> {t.get('to') or '-'} ({t['direction']}){where}"
    )


def grade(labels: list[Label], reported: list[dict[str, Any]], out: Outcome) -> None:
    """Three passes, each over the labels not yet settled and the transitions not yet claimed:
    exact matches (labels naming a variant first; a default label takes a transition reported
    without an environment first), then these versions for another environment, then other
    versions for the variant. What no pass claims is missed (labels) or extra (transitions)."""
    out.others = [shown(t) for t in reported if t["package"] not in FAMILY]
    family = [t for t in reported if t["package"] in FAMILY]
    moves = [t for t in family if t["direction"] != "unchanged"]
    out.unchanged = [shown(t) for t in family if t["direction"] == "unchanged"]
    free = list(range(len(moves)))

    def versions(label: Label, t: dict[str, Any]) -> bool:
        return (
            t["package"] == label.package
            and same_version(label.old, t.get("from"))
            and same_version(label.new, t.get("to"))
            and t["direction"] == label.direction
        )

    def claim(label: Label, fits: Callable[[Label, dict[str, Any]], bool]) -> dict[str, Any] | None:
        found = sorted(
            (i for i in free if fits(label, moves[i])),
            key=lambda i: moves[i].get("environment") is not None,
        )
        if not found:
            return None
        free.remove(found[0])
        return moves[found[0]]

    open_labels = sorted(labels, key=lambda lb: lb.env is None)
    for label in list(open_labels):
        if claim(label, lambda lb, t: fits_variant(lb, t) and versions(lb, t)):
            out.right.append(label.text())
            open_labels.remove(label)
    for fits, why in ((versions, "for another environment"), (fits_variant, "with other versions")):
        for label in list(open_labels):
            t = claim(label, fits)
            if t is not None:
                out.wrong.append(f"{label.text()}: reported {why}: {shown(t)}")
                open_labels.remove(label)
    out.missed = [label.text() for label in open_labels]
    out.extra = [shown(moves[i]) for i in free]


def grade_environment(
    expected: dict[str, int] | None, reported: list[dict[str, Any]], out: Outcome
) -> None:
    """Per kind: as many reported findings as expected are right, the rest extra; a shortfall
    is missed."""
    if expected is None:
        return
    out.environment_graded = True
    found: dict[str, list[str]] = {}
    for e in reported:
        where = f"{e['path']}:{e['line']}: " if e.get("path") and e.get("line") else ""
        found.setdefault(e["kind"], []).append(f"{e['kind']} {where}{e['message']}")
    for kind in sorted(set(expected) | set(found)):
        want, got = expected.get(kind, 0), sorted(found.get(kind, []))
        out.environment_right += got[:want]
        out.environment_extra += got[want:]
        if want > len(got):
            out.environment_missed.append(f"{kind}: {want - len(got)} of {want} not reported")


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    run = subprocess.run(
        ["git", "-C", str(repo), *args], input=data, capture_output=True, check=True
    )
    return run.stdout.decode("utf-8", "replace")


def stand_in_for_missing(clone: Path, revs: list[str]) -> dict[str, str]:
    """Replace every blob of `revs` the snapshot lacks by a placeholder; returns path -> blob."""
    paths: dict[str, str] = {}
    for rev in revs:
        for line in git(clone, "ls-tree", "-r", "-z", rev).split("\0"):
            meta, _, path = line.partition("\t")
            if meta.split(" ")[1:2] == ["blob"]:
                paths[path] = meta.split(" ")[2]
    blobs = sorted(set(paths.values()))
    checked = git(
        clone, "cat-file", "--batch-check", data="\n".join(blobs).encode() + b"\n"
    ).splitlines()
    missing = {line.split(" ")[0] for line in checked if line.endswith(" missing")}
    if missing:
        placeholder = git(clone, "hash-object", "-w", "--stdin", data=PLACEHOLDER).strip()
        for blob in sorted(missing):
            git(clone, "replace", "-f", blob, placeholder)
    return {path: blob for path, blob in paths.items() if blob in missing}


def run_bump(bump: dict[str, Any], mirrors: Path, timeout: float) -> Outcome:
    base, head = bump["range"].split("..")
    out = Outcome(bump["id"], bump["repo"], bump["range"])
    labels = labels_of(bump)
    out.moves_torch = any(lb.package == "torch" and lb.direction != "unchanged" for lb in labels)
    mirror = mirrors / bump["repo"].replace("/", "+") / "repo"
    if not mirror.is_dir():
        out.status, out.reason = (
            "skipped",
            f"no mirror at {mirror}: fetch github:{bump['repo']} first",
        )
        return out
    with tempfile.TemporaryDirectory(prefix="real-bump-") as tmp:
        clone = Path(tmp) / "repo"
        try:
            subprocess.run(
                ["git", "clone", "--quiet", "--shared", "--no-checkout", str(mirror), str(clone)],
                capture_output=True,
                check=True,
            )
            missing = stand_in_for_missing(clone, [base, head])
            git(clone, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", head)
        except subprocess.CalledProcessError as error:
            out.status, out.reason = (
                "error",
                f"git: {error.stderr.decode('utf-8', 'replace').strip()[:300]}",
            )
            return out
        out.placeholders = sorted(missing)
        lost = sorted(set(bump.get("locks", [])) & set(missing))
        if lost:
            out.status, out.reason = (
                "skipped",
                f"lock file(s) missing from the snapshot: {', '.join(lost)}",
            )
            return out
        command = [
            sys.executable,
            "-m",
            "auditor",
            "compare",
            "--git",
            f"{base}..{head}",
            "--format",
            "json",
            "--no-cache",
        ]
        start = time.monotonic()
        try:
            run = subprocess.run(
                command,
                cwd=clone,
                capture_output=True,
                timeout=timeout,
                check=False,
                env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
            )
        except subprocess.TimeoutExpired:
            out.status, out.reason = "error", f"timed out after {timeout:.0f} s"
            out.missed = [lb.text() for lb in labels]
            return out
        finally:
            out.seconds = round(time.monotonic() - start, 1)
    out.exit_code = run.returncode
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        out.status = "error"
        out.reason = (
            f"exit {run.returncode}: {run.stderr.decode('utf-8', 'replace').strip()[-300:]}"
        )
        out.missed = [lb.text() for lb in labels]
        return out
    grade(labels, report.get("transitions", []), out)
    grade_environment(bump.get("environment"), report.get("environment", []), out)
    out.verdict = report.get("verdict", "pass" if run.returncode == 0 else "fail")
    out.green = run.returncode == 0 and out.verdict == "pass"
    out.findings = len(report.get("findings", []))
    out.environment = len(report.get("environment", []))
    out.skipped_files = [f"{s['path']}: {s['reason']}" for s in report.get("skipped", [])]
    out.notes = list(report.get("notes", []))
    return out


def table(out: Outcome) -> str:
    verdict = (
        "-"
        if out.exit_code is None
        else (
            f"exit {out.exit_code}"
            + (" GREEN" if out.green else " (unchecked)" if out.verdict == "unchecked" else "")
            + (
                f", {out.findings} call site(s), {out.environment} environment finding(s)"
                if out.status == "run"
                else ""
            )
        )
    )
    base, head = out.range.split("..")
    status = out.status + (f": {out.reason}" if out.reason else "")
    lines = [
        f"== {out.id}  {out.repo}  {base[:12]}..{head[:12]}  [{status}]  {verdict}  {out.seconds}s"
    ]
    lines += [f"   right   {t}" for t in out.right]
    lines += [f"   WRONG   {t}" for t in out.wrong]
    lines += [f"   MISSED  {t}" for t in out.missed]
    lines += [f"   extra   {t}" for t in out.extra]
    lines += [f"   right   environment {t}" for t in out.environment_right]
    lines += [f"   MISSED  environment {t}" for t in out.environment_missed]
    lines += [f"   extra   environment {t}" for t in out.environment_extra]
    lines += [f"   same    {t}" for t in out.unchanged]
    lines += [f"   other   {t}" for t in out.others]
    if out.green and out.moves_torch:
        lines.append("   GREEN VERDICT ON A BUMP THAT MOVES TORCH")
    lines += [f"   skipped file: {s}" for s in out.skipped_files]
    if out.placeholders:
        lines.append(
            f"   {len(out.placeholders)} file(s) missing from the snapshot, replaced by a placeholder: "
            + ", ".join(out.placeholders[:5])
            + (" ..." if len(out.placeholders) > 5 else "")
        )
    lines += [
        f"   note: {n}"
        for n in out.notes
        if not n.startswith(("Lockfiles compared", "Lockfiles and project"))
    ]
    return "\n".join(lines)


def totals(outcomes: list[Outcome]) -> dict[str, Any]:
    ran = [o for o in outcomes if o.status == "run"]

    def count(kind: str, package: str | None = None) -> int:
        return sum(
            1
            for o in outcomes
            for t in getattr(o, kind)
            if package is None or t.startswith(package + " ")
        )

    return {
        "bumps": len(outcomes),
        "ran": len(ran),
        "skipped": [o.id for o in outcomes if o.status == "skipped"],
        "errors": [o.id for o in outcomes if o.status == "error"],
        "repositories": len({o.repo for o in outcomes}),
        **{kind: count(kind) for kind in ("right", "wrong", "missed", "extra")},
        "by_package": {
            p: {kind: count(kind, p) for kind in ("right", "wrong", "missed", "extra")}
            for p in FAMILY
        },
        "environment": {
            "graded": sum(o.environment_graded for o in outcomes),
            **{kind: count(f"environment_{kind}") for kind in ("right", "missed", "extra")},
        },
        "torch_bumps": sum(o.moves_torch for o in outcomes),
        "green_on_torch_bumps": [o.id for o in outcomes if o.moves_torch and o.green],
        "unchecked_on_torch_bumps": [
            o.id for o in outcomes if o.moves_torch and o.verdict == "unchecked"
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mirrors", type=Path, default=Path("/work/.mirror"), help="where the snapshots are"
    )
    parser.add_argument("--labels", type=Path, default=HERE / "bumps.toml")
    parser.add_argument("--only", nargs="*", default=[], help="bump ids to run (default: all)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds one compare may take")
    parser.add_argument("--json", type=Path, help="also write the summary and every outcome here")
    args = parser.parse_args()
    bumps = tomllib.loads(args.labels.read_text())["bump"]
    ids = [b["id"] for b in bumps]
    if len(set(ids)) != len(ids):
        sys.exit(f"{args.labels}: duplicate bump ids")
    unknown = set(args.only) - set(ids)
    if unknown:
        sys.exit(f"unknown bump ids: {', '.join(sorted(unknown))}")
    outcomes = []
    for bump in bumps:
        if args.only and bump["id"] not in args.only:
            continue
        out = run_bump(bump, args.mirrors, args.timeout)
        outcomes.append(out)
        print(table(out), flush=True)
    summary = totals(outcomes)
    print("\n" + json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(
            json.dumps({"summary": summary, "bumps": [asdict(o) for o in outcomes]}, indent=1)
            + "\n"
        )
    perfect = not (
        summary["wrong"]
        or summary["missed"]
        or summary["environment"]["missed"]
        or summary["green_on_torch_bumps"]
        or summary["errors"]
        or summary["skipped"]
    )
    return 0 if perfect else 1


if __name__ == "__main__":
    sys.exit(main())
