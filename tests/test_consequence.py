"""Findings ranked by what happens to the code, one row per call site, on projects under
tests/fixtures/consequence that have the shapes of real bumps:

- voice: torch 2.4.0 -> 2.10.0, two `torch.onnx.export` calls (one laid out over several lines,
  with dynamic_axes), one `torch.load`, nine `@torch.jit.script` lines that only warn;
- imagegen: torch 2.7.1 -> 2.12.0, fourteen TorchScript warnings in `third_party/`, a
  `torch.hub.load(..., source='local')`, one of a repository torch trusts, and one in a hub entry
  class of a `hubconf.py` that nothing loads or imports;
- examples: torch 1.12.1 -> 2.6.0, two `torch.load`, one ONNX export, two FSDP deprecations.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.version import Version
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import CONSEQUENCE_OF_KIND, KINDS
from auditor.models import AuditResult, Transition
from auditor.report import markdown as markdown_report
from auditor.report import text as text_report

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "consequence"
BUMPS = {"voice": ("2.4.0", "2.10.0"), "imagegen": ("2.7.1", "2.12.0"), "examples": ("1.12.1", "2.6.0")}


def scan(project: str | Path, *options: str, fmt: str = "json", bump: str | None = None):
    old, new = BUMPS[bump or str(project)]
    path = project if isinstance(project, Path) else FIXTURES / project
    return runner.invoke(app, ["scan", str(path), "--from", old, "--to", new, "--no-cache", "--format", fmt, *options])


def document(project: str | Path, *options: str, bump: str | None = None) -> tuple[int, dict]:
    done = scan(project, *options, bump=bump)
    assert done.exit_code in (0, 1), done.output
    return done.exit_code, json.loads(done.stdout)


def sites(doc: dict, gates: bool | None = None) -> list[tuple[str, int]]:
    return sorted((f["path"], f["line"]) for f in doc["findings"] if gates is None or f["gates"] is gates)


JIT_LINES = [(f"models/block{i}.py", line) for i in (1, 2, 3) for line in (4, 9, 14)]


def test_every_kind_has_a_consequence_and_entries_state_theirs_where_the_kind_misleads(kb: KnowledgeBase) -> None:
    assert set(CONSEQUENCE_OF_KIND) == set(KINDS)
    by_id = {e.id: e for e in kb.entries}
    expected = {
        "torch-floor-divide-rounds-toward-floor": "changes-results",  # behaviour
        "torch-symeig-removed": "breaks",  # removed
        "torch-jit-deprecation-warning": "warns",  # deprecated
        "torch-python-3-8-dropped": "environment",  # python-support
        "torch-transformer-encoder-nested-tensor-warns": "warns",  # behaviour whose probe only warns
        "torch-load-weights-only-default-true": "breaks",  # stated: a pickled object raises
        "torch-hub-trust-repo-default-check": "breaks",  # stated: the prompt raises without a terminal
        "torch-python-3-12-wheels-added": "environment",  # stated: `added` of wheels, not of an API
    }
    assert {i: by_id[i].consequence for i in expected} == expected


def test_voice_bump_gates_the_three_lines_that_need_a_change() -> None:
    code, doc = document("voice")
    assert code == 1
    assert sites(doc, gates=True) == [("export.py", 6), ("export.py", 17), ("infer.py", 5)]
    assert sites(doc, gates=False) == JIT_LINES
    assert {f["consequence"] for f in doc["findings"] if not f["gates"]} == {"warns"}
    assert (doc["counts"]["gating_call_sites"], doc["counts"]["warning_call_sites"]) == (3, 9)
    _, every = document("voice", "--fail-on-warnings")
    assert sites(every, gates=True) == sites(doc)


def test_warnings_alone_do_not_fail_and_fail_when_asked() -> None:
    project = FIXTURES / "voice" / "models"  # the nine TorchScript lines only
    assert scan(project, bump="voice").exit_code == 0
    assert scan(project, "--fail-on-warnings", bump="voice").exit_code == 1
    # --fail-on and --fail-on-confidence keep their meaning on top of the consequence gate
    assert scan(project, "--fail-on-warnings", "--fail-on", "high", bump="voice").exit_code == 0


def test_changes_at_one_call_are_one_finding_with_each_reason_and_a_fix_that_says_what_it_trades() -> None:
    _, doc = document("voice")
    (export,) = [f for f in doc["findings"] if (f["path"], f["line"]) == ("export.py", 6)]
    assert export["change"] == "torch-onnx-export-dynamo-default" and export["consequence"] == "breaks"
    assert [(a["change"], a["consequence"]) for a in export["also"]] == [
        ("torch-onnx-export-dynamic-axes-conversion-deprecated", "warns"),
        ("torch-onnx-export-torchscript-exporter-deprecated", "warns"),
    ]
    assert all(a["message"] for a in export["also"])
    # keep-old's dynamo=False is the call the TorchScript exporter's deprecation flags: said
    assert "`dynamo=False` is what torch-onnx-export-torchscript-exporter-deprecated flags" in export["fix_note"]
    text = scan("voice", fmt="text").stdout
    assert text.count("export.py:6:5") == 1
    assert "also torch-onnx-export-dynamic-axes-conversion-deprecated (warns, high)" in text
    assert "fix trade: keep-old's `dynamo=False`" in text
    markdown = scan("voice", fmt="markdown").stdout
    assert "<br>also `torch-onnx-export-dynamic-axes-conversion-deprecated` (high)" in markdown
    assert "- also torch-onnx-export-dynamic-axes-conversion-deprecated: From 2.10, dynamic\\_axes" in markdown
    assert markdown.count("[export.py:6]") + markdown.count("export.py:6 ") == 1


def test_the_fix_engine_leaves_a_merged_call_outside_its_proven_shapes(tmp_path: Path) -> None:
    project = shutil.copytree(FIXTURES / "voice", tmp_path / "voice")
    done = runner.invoke(app, ["fix", "--from", "2.4.0", "--to", "2.10.0", str(project), "--adopt-new",
                               "--min-confidence", "low", "--format", "json", "--no-cache", "--fail-on", "none"])
    assert done.exit_code == 0, done.output
    left = {(a["path"], a["line"], a["change"]): a for a in json.loads(done.stdout)["left_alone"]}
    # the TorchScript exporter's adopt-new (dynamo=True) reaches the calls folded under the dynamo
    # default, and leaves alone the one whose keywords it was not proven with
    alone = left[("export.py", 17, "torch-onnx-export-torchscript-exporter-deprecated")]
    assert alone["kind"] == "unproven-shape" and "opset_version=" in alone["reason"]


def test_a_call_over_several_lines_is_shown_with_the_argument_that_decides() -> None:
    _, doc = document("voice")
    (export,) = [f for f in doc["findings"] if (f["path"], f["line"]) == ("export.py", 6)]
    assert export["snippet"].startswith("torch.onnx.export(\n")
    assert 'dynamic_axes={"features": {0: "batch", 2: "frames"}},' in export["snippet"]
    assert export["snippet"].endswith(")")


def test_image_generation_bump_gates_nothing_vendored_warnings_and_hub_checks_that_cannot_apply() -> None:
    code, doc = document("imagegen")
    assert code == 0
    # source='local'; an owner torch trusts; a hubconf entry class no code names
    assert not [f for f in doc["findings"] if "hub" in f["change"]]
    assert len(doc["findings"]) == 14 and all(f["vendored"] and not f["gates"] for f in doc["findings"])
    assert doc["counts"]["vendored_call_sites"] == 14
    assert scan("imagegen", "--fail-on-vendored").exit_code == 0  # they only warn
    assert scan("imagegen", "--fail-on-vendored", "--fail-on-warnings").exit_code == 1
    text = scan("imagegen", fmt="text").stdout
    # the bump crosses changes generated from torch's source that a default audit does not check
    assert doc["verdict"] == "unchecked"
    assert text.splitlines()[1].startswith("NOT VERIFIED: nothing counted for the exit code")
    assert "14 call site(s) in vendored code (not counted unless --fail-on-vendored), collapsed:" in text
    markdown = scan("imagegen", fmt="markdown").stdout
    assert markdown.split("\n\n")[1].startswith("⚠️ **No call site counts for the exit code.** 14 call sites")
    assert "<details><summary>14 call sites in vendored code (not counted unless --fail-on-vendored)</summary>" in markdown


def test_vendored_folders_are_configurable(tmp_path: Path) -> None:
    project = shutil.copytree(FIXTURES / "imagegen", tmp_path / "imagegen")
    (project / "pyproject.toml").write_text('[tool.auditor]\nvendored = []\n')
    code, doc = document(project, "--fail-on-warnings", bump="imagegen")
    assert code == 1 and not any(f["vendored"] for f in doc["findings"])
    (project / "pyproject.toml").write_text('[tool.auditor]\nvendored = "third_party/fastops/ops1.py"\n')
    _, doc = document(project, bump="imagegen")
    assert {f["path"] for f in doc["findings"] if f["vendored"]} == {"third_party/fastops/ops1.py"}


def test_examples_bump_gates_the_loads_and_the_export_and_lists_fsdp_deprecations_apart() -> None:
    code, doc = document("examples")
    assert code == 1
    assert sites(doc, gates=True) == [("train.py", 5), ("train.py", 11), ("train.py", 15)]
    assert sites(doc, gates=False) == [("checkpointing/sharded.py", 7), ("checkpointing/sharded.py", 12)]
    markdown = scan("examples", fmt="markdown").stdout
    collapsed = markdown.split("<details><summary>2 call sites only warn")[1].split("</details>")[0]
    assert "`torch-fsdp-state-dict-type-deprecated`" in collapsed
    assert "### 🔴 torch.load defaults" in markdown.split("<details><summary>2 call sites only warn")[0]
    sarif = json.loads(scan("examples", fmt="sarif").stdout)
    levels = {(r["ruleId"], r["level"]) for r in sarif["runs"][0]["results"]}
    assert ("torch-fsdp-state-dict-type-deprecated", "note") in levels
    assert ("torch-load-weights-only-default-true", "error") in levels


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_verdict_comes_first_and_the_notes_after_the_gating_findings(fmt: str) -> None:
    out = scan("voice", fmt=fmt).stdout
    verdict = "FAIL: 3 call site(s) need a change" if fmt == "text" else "**3 call sites in 2 files affected**"
    note = "also crosses"  # the generated changes this audit did not check
    first_finding = out.index("torch-onnx-export-dynamo-default")
    assert out.index(verdict) < first_finding < out.index(note)
    assert out.count(note) == 1
    head = out[: out.index(verdict)]
    assert "note" not in head.lower()


def test_long_environment_names_are_short_in_text_and_markdown() -> None:
    name = "python_version >= '3.9' and " * 40  # a lock's environment, 1,120 characters
    bump = Transition("torch", Version("2.4.0"), Version("2.10.0"), environment=name)
    result = AuditResult(transitions=(bump,), changes=(), findings=())
    for out in (markdown_report.render(result), text_report.render(result)):
        assert name not in out and "pyt…" in out
        assert max(len(line) for line in out.splitlines()) < 200


def test_git_mode_names_no_temporary_checkout(tmp_path: Path) -> None:
    repo = shutil.copytree(FIXTURES / "voice", tmp_path / "repo")
    git = ["git", "-c", "user.email=a@b.c", "-c", "user.name=a", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "requirements.txt").write_text("torch==2.4.0\ntorchaudio==2.4.0\n")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (repo / "requirements.txt").write_text("torch==2.10.0\ntorchaudio==2.10.0\n")
    subprocess.run([*git, "commit", "-qam", "bump"], check=True)
    for fmt in ("text", "markdown", "json"):
        done = runner.invoke(app, ["compare", "--git", "HEAD~1..HEAD", "--project", str(repo), "--no-cache", "-f", fmt])
        assert done.exit_code == 1, done.output
        assert "auditor-git-" not in done.stdout
    markdown = runner.invoke(app, ["compare", "--git", "HEAD~1..HEAD", "--project", str(repo), "--no-cache", "-f", "markdown"]).stdout
    # torchaudio has generated changes but no reviewed entry: no sentence says the knowledge base knows nothing of it
    assert "no knowledge of torchaudio" not in markdown and "no reviewed entry for torchaudio" in markdown
    assert "### Compatibility" not in markdown  # the unreviewed move is said in the verdict and the not-checked block


def plan(*args: str):
    return runner.invoke(app, ["plan", *args, "--no-cache"])


def test_plan_has_one_row_per_later_release_with_counts_per_consequence(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.txt"
    lock.write_text("numpy==1.26.4\ntorch==2.4.0+cu121\n")
    done = plan(str(FIXTURES / "voice"), "--lock", str(lock), "-f", "json")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert (doc["package"], doc["current"], doc["horizon"]) == ("torch", "2.4.0+cu121", "2.15.0")
    rows = {r["release"]: r for r in doc["rows"]}
    assert min(rows, key=lambda v: tuple(map(int, v.split(".")))) == "2.5.0" and "2.15.0" in rows
    assert rows["2.6.0"]["call_sites"]["breaks"] == 1  # torch.load
    assert rows["2.10.0"]["call_sites"] == {"breaks": 3, "changes_results": 0, "warns": 9, "environment": 0}
    assert rows["2.10.0"]["gating_call_sites"] == 3 and rows["2.10.0"]["fixable_call_sites"] == 3
    assert [e["change"] for e in rows["2.9.0"]["environment"]] == ["torch-python-3-9-dropped"]
    assert rows["2.10.0"]["environment"] == []  # each environment change once, on the release that brings it
    given = json.loads(plan(str(FIXTURES / "voice"), "--from", "2.4.0", "-f", "json").stdout)
    assert given["rows"] == doc["rows"]  # the same bumps, from the lock or from --from
    text = plan(str(FIXTURES / "voice"), "--from", "2.4.0").stdout
    assert text.splitlines()[0] == "torch 2.4.0: what each later release does to this code, up to the horizon 2.15.0"
    assert any(line.split()[:1] == ["2.10.0"] and line.split()[2:5] == ["3", "0", "9"] for line in text.splitlines())
    assert "  2.9.0: torch 2.9.0 has no wheels for Python 3.9" in text
    markdown = plan(str(FIXTURES / "voice"), "--from", "2.4.0", "-f", "markdown").stdout
    assert "| 2.10.0 | 65 | 3 | 0 | 9 | 0 | 3 | 3 | 0 |  |" in markdown  # 65 changes crossed by 2.10.0


def test_plan_needs_one_current_version(tmp_path: Path) -> None:
    project = str(FIXTURES / "voice")
    assert plan(project).exit_code == 2 and "one of --lock and --from" in plan(project).output
    lock = tmp_path / "requirements.txt"
    lock.write_text("numpy==1.26.4\n")
    done = plan(project, "--lock", str(lock))
    assert done.exit_code == 2 and "pins no version of torch" in done.output and "requirements.txt" in done.output


def test_gates_follow_the_options_given_and_annotations_follow_the_split() -> None:
    _, none = document("voice", "--fail-on", "none")
    assert not any(f["gates"] for f in none["findings"]) and none["counts"]["gating_call_sites"] == 0
    annotations = scan("voice", fmt="github").stdout.splitlines()
    jit = [a for a in annotations if "torch-jit-deprecation-warning" in a]
    assert len(jit) == 9 and all(a.startswith("::notice ") for a in jit)
    assert [a.split(" ")[0] for a in annotations if "title=auditor%3A torch-load-weights-only" in a] == ["::error"]
    asked = scan("voice", "--fail-on-warnings", fmt="github").stdout.splitlines()
    assert all(not a.startswith("::notice ") for a in asked if "torch-jit-deprecation-warning" in a)


def test_kb_show_states_the_consequence() -> None:
    shown = runner.invoke(app, ["kb", "show", "torch-load-weights-only-default-true"]).stdout
    assert "default-changed · breaks · severity high" in shown


def test_a_hub_load_in_a_class_the_project_never_names_is_no_finding(tmp_path: Path) -> None:
    """The image-generation shape: a hubconf entry class nothing loads or imports. Named by
    another module, by a hub load of the entry, or only in a file added after a cached scan,
    the class runs and the finding is back."""
    project = shutil.copytree(FIXTURES / "imagegen" / "app", tmp_path / "app")
    cache = ["--cache-dir", str(tmp_path / "cache")]

    def hub_lines(*options: str) -> list[tuple[str, int]]:
        done = runner.invoke(app, ["scan", str(project), "--from", "2.7.1", "--to", "2.12.0", "--format", "json", *options])
        assert done.exit_code in (0, 1), done.output
        return [(f["path"], f["line"]) for f in json.loads(done.stdout)["findings"] if "hub" in f["change"]]

    assert hub_lines(*cache) == []
    (project / "restore.py").write_text("from upscaler.hubconf import FaceRestorer\n\nRESTORER = FaceRestorer()\n", "utf-8")
    assert hub_lines(*cache) == [("upscaler/hubconf.py", 16)]  # a new file: the cached result is not served
    (project / "restore.py").write_text(
        "import torch\n\nRESTORER = torch.hub.load('upscaler', 'FaceRestorer', source='local')\n", "utf-8"
    )
    assert hub_lines("--no-cache") == [("upscaler/hubconf.py", 16)]
