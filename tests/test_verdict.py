"""The verdict: `fail` when the exit code fails, `unchecked` when it does not but the audit crossed
what it did not check (generated changes, a file of the project it could not read), `pass` only
when neither. No report shows a green check over what was not checked."""

import json
from pathlib import Path

from typer.testing import CliRunner

from auditor.cli import app

runner = CliRunner()


def _scan(project: Path, old: str, new: str, fmt: str, *extra: str) -> tuple[int, str]:
    done = runner.invoke(app, ["scan", str(project), "--from", old, "--to", new, "--no-cache", "-f", fmt, *extra])
    return done.exit_code, done.stdout


def _project(tmp_path: Path, source: str) -> Path:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "train.py").write_text(source, "utf-8")
    return tmp_path / "p"


def test_unchecked_generated_changes_make_the_verdict_unchecked_not_a_pass(tmp_path: Path) -> None:
    project = _project(tmp_path, "import torch\n\nx = torch.ones(2)\n")
    code, out = _scan(project, "2.5.1", "2.6.0", "json")
    document = json.loads(out)
    assert code == 0 and document["findings"] == []
    assert document["verdict"] == "unchecked"
    assert any("did not check" in n for n in document["notes"])
    _, markdown = _scan(project, "2.5.1", "2.6.0", "markdown")
    assert "✅" not in markdown and "**Not verified in full:**" in markdown
    _, text = _scan(project, "2.5.1", "2.6.0", "text")
    assert "NOT VERIFIED" in text and "PASS" not in text


def test_with_the_generated_changes_checked_the_same_scan_passes(tmp_path: Path) -> None:
    project = _project(tmp_path, "import torch\n\nx = torch.ones(2)\n")
    code, out = _scan(project, "2.5.1", "2.6.0", "json", "--harvested")
    document = json.loads(out)
    assert code == 0 and document["verdict"] == "pass", document["notes"]
    _, markdown = _scan(project, "2.5.1", "2.6.0", "markdown", "--harvested")
    assert markdown.count("✅") >= 1 and "Not verified" not in markdown


def test_a_file_the_scan_could_not_read_makes_the_verdict_unchecked(tmp_path: Path) -> None:
    project = _project(tmp_path, "import torch\n\nx = torch.ones(2)\n")
    (project / "broken.py").write_text("import torch\ndef f(:\n    return torch.load(p)\n", "utf-8")
    code, out = _scan(project, "2.5.1", "2.6.0", "json", "--harvested")
    document = json.loads(out)
    assert code == 0 and [s["path"] for s in document["skipped"]] == ["broken.py"]
    assert document["verdict"] == "unchecked"
    (project / "broken.py").unlink()
    assert json.loads(_scan(project, "2.5.1", "2.6.0", "json", "--harvested")[1])["verdict"] == "pass"


def test_a_failing_exit_code_is_the_verdict_fail(tmp_path: Path) -> None:
    project = _project(tmp_path, "import torch\n\nmodel = torch.load('m.pt')\n")
    code, out = _scan(project, "2.5.1", "2.6.0", "json")
    assert code == 1 and json.loads(out)["verdict"] == "fail"
