"""A torch-family package a bump adds is reported as added, reviewed or not."""

import json
from pathlib import Path

from typer.testing import CliRunner

from auditor.cli import app


def test_an_added_torchaudio_is_reported_as_added(tmp_path: Path) -> None:
    # a move from poetry to uv that also starts installing torchaudio
    (tmp_path / "old.txt").write_text("numpy==1.26.4\ntorch==2.4.1\n")
    (tmp_path / "new.txt").write_text("numpy==1.26.4\ntorch==2.11.0\ntorchaudio==2.11.0\n")
    (tmp_path / "project").mkdir()
    result = CliRunner().invoke(app, [
        "compare", str(tmp_path / "old.txt"), str(tmp_path / "new.txt"), "--project", str(tmp_path / "project"),
        "--no-cache", "--format", "json",
    ])
    moves = {(t["package"], t["from"], t["to"], t["direction"]) for t in json.loads(result.stdout)["transitions"]}
    assert ("torchaudio", None, "2.11.0", "added") in moves
    assert ("torch", "2.4.1", "2.11.0", "upgrade") in moves
