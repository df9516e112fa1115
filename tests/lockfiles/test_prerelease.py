"""Pre-releases and nightlies (`2.6.0rc1`, `2.6.0.dev20250101`, `2.6.0a0+git...`) are audited as
the release they lead to, with a note saying so, whichever lock format names them."""

import json
from pathlib import Path

import pytest
from packaging.version import Version
from typer.testing import CliRunner

from auditor.cli import app, knowledge
from auditor.models import Transition

runner = CliRunner()
CHANGE = "torch-load-weights-only-default-true"  # a torch 2.6.0 change


def lock_pair(tmp_path: Path, fmt: str, old: str, new: str) -> tuple[Path, Path]:
    """Two locks of one format pinning torch at `old` and `new`."""
    written = []
    for side, version in (("old", old), ("new", new)):
        folder = tmp_path / side
        folder.mkdir()
        if fmt == "requirements":
            path, text = folder / "requirements.txt", f"numpy==2.1.3\ntorch=={version}\n"
        elif fmt == "freeze":
            path, text = folder / "freeze.txt", f"numpy==2.1.3\ntorch=={version}\n"
        elif fmt == "conda":
            path, text = folder / "environment.yml", f"dependencies:\n  - python=3.11\n  - pytorch={version}\n"
        elif fmt == "pipfile":
            path = folder / "Pipfile.lock"
            text = json.dumps({"_meta": {"pipfile-spec": 6}, "default": {"torch": {"version": f"=={version}"}}})
        else:
            path, text = folder / "pyproject.toml", f'[tool.poetry.dependencies]\ntorch = "{version}"\n'
        path.write_text(text)
        written.append(path)
    return written[0], written[1]


@pytest.mark.parametrize("fmt", ["requirements", "freeze", "conda", "pipfile", "poetry"])
@pytest.mark.parametrize("new", ["2.6.0rc1", "2.6.0.dev20250101", "2.6.0a0+git1eba9b3"])
def test_a_move_to_a_pre_release_crosses_what_its_release_crosses(tmp_path: Path, fmt: str, new: str) -> None:
    old_lock, new_lock = lock_pair(tmp_path, fmt, "2.5.1", new)
    result = runner.invoke(app, ["compare", str(old_lock), str(new_lock), "-f", "json"])
    assert result.exit_code in (0, 1), result.output
    document = json.loads(result.stdout)
    assert [(t["from"], t["to"]) for t in document["transitions"]] == [("2.5.1", str(Version(new)))]
    assert CHANGE in {c["id"] for c in document["changes"]}
    assert f"torch {Version(new)} is a pre-release: audited as the 2.6.0 release it leads to" in document["notes"]


def test_the_note_shows_in_text_too(tmp_path: Path) -> None:
    old_lock, new_lock = lock_pair(tmp_path, "requirements", "2.5.1", "2.6.0rc1")
    result = runner.invoke(app, ["compare", str(old_lock), str(new_lock)])
    assert "torch 2.6.0rc1 is a pre-release: audited as the 2.6.0 release it leads to" in result.stdout


def test_from_a_release_candidate_to_its_release_crosses_nothing() -> None:
    kb = knowledge()
    assert kb.crossed([Transition("torch", Version("2.6.0rc1"), Version("2.6.0"))]) == ()
    assert Transition("torch", Version("2.6.0rc1"), Version("2.6.0")).direction == "upgrade"
    crossed = {c.id for c in kb.crossed([Transition("torch", Version("2.5.1"), Version("2.6.0.dev20250101"))])}
    assert crossed == {c.id for c in kb.crossed([Transition("torch", Version("2.5.1"), Version("2.6.0"))])}


def test_scan_with_a_pre_release_end_says_so(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text('import torch\nstate = torch.load("model.pt")\n')
    result = runner.invoke(app, ["scan", str(tmp_path), "--from", "2.5.1", "--to", "2.6.0rc1", "-f", "json"])
    document = json.loads(result.stdout)
    assert result.exit_code == 1, result.output
    assert {f["change"] for f in document["findings"]} >= {CHANGE}
    assert "torch 2.6.0rc1 is a pre-release: audited as the 2.6.0 release it leads to" in document["notes"]
