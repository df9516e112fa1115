"""`auditor fix` on a copy of examples/project in a real git repository: the diff, --write,
the refusal on a dirty tree, JSON, and issue 15's closing checks on the example."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app

runner = CliRunner()
LOCKS = ("requirements-old.txt", "requirements-new.txt")
DATA = "torch-tensor-data-int-on-requires-grad-raises"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        check=True, capture_output=True, text=True,
    ).stdout


@pytest.fixture
def copy(examples: Path, tmp_path: Path) -> Path:
    for lock in LOCKS:
        shutil.copy(examples / lock, tmp_path / lock)
    project = tmp_path / "project"
    shutil.copytree(examples / "project", project)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "the example")
    return tmp_path


def fix(root: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["fix", *(str(root / lock) for lock in LOCKS), "--project", str(root / "project"),
                                 "--no-cache", *args])
    return result.exit_code, result.output


def test_the_diff_is_the_default_and_writes_nothing(copy: Path) -> None:
    code, out = fix(copy, "--keep-old")
    assert code == 1, out  # two findings have no mechanical fix
    assert "\n-    return torch.floor_divide(centred, window)\n" in out
    assert "\n+    return torch.div(centred, window, rounding_mode='trunc')\n" in out
    assert "would rewrite 6 call site(s) in 3 file(s) with --keep-old; 2 left alone" in out
    assert _git(copy / "project", "status", "--porcelain") == ""


def test_write_then_compare_leaves_only_what_fix_listed_without_a_mechanical_fix(copy: Path, examples: Path) -> None:
    project = copy / "project"
    code, out = fix(copy, "--keep-old", "--write")
    assert code == 1, out
    assert "wrote data/windows.py\nwrote explore.ipynb\nwrote quantize.py\n" in out
    listed = {line.split("  ")[1] for line in out.splitlines() if "no mechanical fix" in line}
    assert listed == {"explore.ipynb[cell 5]:3:1", "models/conv1d.py:26:5"}
    again = runner.invoke(app, ["compare", *(str(copy / lock) for lock in LOCKS), "--project", str(project),
                                "--no-cache", "--format", "json"])
    left = [f for f in json.loads(again.stdout)["findings"] if f["confidence"] == "high"]
    assert {(f["path"], f["cell"], f["line"], f["column"]) for f in left} == {
        ("explore.ipynb", 5, 3, 1), ("models/conv1d.py", None, 26, 5)
    }
    assert {f["change"] for f in left} == {DATA}
    # the notebook keeps its outputs and metadata byte for byte outside the edited line
    old = (examples / "project" / "explore.ipynb").read_text("utf-8")
    assert (project / "explore.ipynb").read_text("utf-8") == old.replace(
        '"halves = positions // 2\\n"', '"halves = torch.div(positions, 2, rounding_mode=\'trunc\')\\n"'
    )
    # the rewritten code, run on torch 2.13 (the new behaviour), computes what 1.12 computed:
    # truncating division, and int8 values that wrap
    driver = (
        "import sys, torch; sys.path.insert(0, sys.argv[1]); import quantize; from data import windows\n"
        "s = windows.window_starts(100, 10, 7)\n"
        "print(quantize.lookup_table().tolist()); print(windows.centre_offsets(s, 3).tolist())\n"
        "print(windows.bucket_of(torch.arange(-9, 9), 4).tolist())"
    )
    done = subprocess.run([sys.executable, "-c", driver, str(project)], capture_output=True, text=True, check=True)
    wrap = [((v + 128) % 256) - 128 for v in (0, 64, 127, 200, 255, 300)]
    starts = list(range(0, 85, 7))
    trunc = [int((s - int(max(starts) / 2)) / 3) for s in starts]
    assert done.stdout.splitlines() == [str(wrap), str(trunc), str([int(v / 4) for v in range(-9, 9)])]


def test_write_is_refused_on_a_dirty_tree_unless_forced(copy: Path) -> None:
    project = copy / "project"
    with (project / "quantize.py").open("a") as handle:
        handle.write("# an edit not yet committed\n")
    code, out = fix(copy, "--keep-old", "--write")
    assert code == 2
    assert "uncommitted changes in the project (quantize.py): commit or stash them, or give --force" in out
    assert "Traceback" not in out and _git(project, "status", "--porcelain").splitlines() == [" M quantize.py"]
    code, out = fix(copy, "--keep-old", "--write", "--force")
    assert code == 1 and "wrote data/windows.py" in out


def test_json_lists_applied_and_left_alone(copy: Path) -> None:
    code, out = fix(copy, "--adopt-new", "--format", "json", "--fail-on", "none")
    assert code == 0
    document = json.loads(out)
    assert document["mode"] == "adopt-new" and document["written"] == []
    assert sorted((a["path"], a["line"], a["action"], a["shape"]) for a in document["applied"]) == [
        ("data/windows.py", 14, "template", "operator"), ("data/windows.py", 15, "template", "call"),
        ("data/windows.py", 19, "template", "operator"), ("explore.ipynb", 2, "template", "operator"),
    ]
    kinds = sorted((x["path"], x["kind"]) for x in document["left_alone"])
    assert kinds == [("explore.ipynb", "no-fix"), ("models/conv1d.py", "no-fix"), ("quantize.py", "no-fix"), ("quantize.py", "no-fix")]
    assert "rounding_mode='floor'" in document["diff"]


def test_from_to_form_and_usage_errors(copy: Path) -> None:
    project = copy / "project"
    result = runner.invoke(app, ["fix", "--from", "1.12.1", "--to", "1.13.0", str(project), "--keep-old", "--no-cache"])
    assert result.exit_code == 1 and "would rewrite 6 call site(s)" in result.output
    for args, message in [
        (["--from", "1.12.1", "--to", "1.13.0", str(project)], "one of --keep-old and --adopt-new"),
        (["--from", "1.12.1", str(project), "--keep-old"], "--from and --to go together"),
        ([str(project), "--keep-old"], "fix needs OLD NEW --project DIR"),
    ]:
        result = runner.invoke(app, ["fix", *args])
        assert result.exit_code == 2 and message in result.output, result.output
