"""Ignore comments: read from comment tokens only, in scripts and notebooks, and an id that no
knowledge entry has is reported with its place instead of silencing nothing in silence."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from auditor.cli import app
from auditor.scan.ignores import read_ignores

FLOOR = "torch-floor-divide-rounds-toward-floor"


def scan(project: Path) -> dict:
    done = CliRunner().invoke(app, ["scan", str(project), "--from", "1.12.1", "--to", "1.13.0", "-f", "json", "--no-cache"])
    return json.loads(done.stdout)


def test_unknown_ids_are_reported_with_path_and_line(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "import torch\n"
        "t = torch.arange(-4, 4)\n"
        f"a = t // 2  # auditor: ignore[{FLOOR}]\n"
        "b = t // 2  # auditor: ignore[torch-flor-divide-rounds-toward-floor]\n"
        f"c = t // 2  # auditor: ignore[{FLOOR}, no-such-id]\n",
        "utf-8",
    )
    document = scan(tmp_path)
    assert sorted(f["line"] for f in document["findings"] if f["change"] == FLOOR) == [4]
    reasons = sorted(s["reason"] for s in document["skipped"] if s["path"] == "m.py")
    assert reasons == [
        "line 4: '# auditor: ignore[torch-flor-divide-rounds-toward-floor]': no knowledge entry has this id, it silences nothing",
        "line 5: '# auditor: ignore[no-such-id]': no knowledge entry has this id, it silences nothing",
    ]


def test_notebook_cells_read_ignore_comments_from_comments_only(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# auditor: ignore"},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": "import torch\nt = torch.arange(-4, 4)\n"},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": f"a = t // 2  # auditor: ignore[{FLOOR}]\nb = (t // 2, '# auditor: ignore')\nc = t // 2  # auditor: ignore[typo]\n"},
    ]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook), "utf-8")
    document = scan(tmp_path)
    assert sorted((f["cell"], f["line"]) for f in document["findings"] if f["change"] == FLOOR) == [(3, 2), (3, 3)]
    (skip,) = [s for s in document["skipped"] if s["path"] == "n.ipynb"]
    assert skip["reason"].startswith("cell 3, line 3: '# auditor: ignore[typo]'")


def test_only_sources_holding_the_marker_are_tokenized() -> None:
    plain = "import torch\nx = '#' + 'auditor' + ': ignore'\n"
    assert read_ignores(plain).lines == {}
    assert read_ignores("x = 1  # auditor: ignore\n").lines == {1: None}
    assert read_ignores("x = 1  # auditor: ignore[a, b]\n# auditor: ignore[c]\n").lines == {
        1: frozenset({"a", "b"}), 2: frozenset({"c"})
    }
    assert read_ignores('s = """\n# auditor: ignore\n"""\n').lines == {}
