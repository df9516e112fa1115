"""`auditor compare` with the dependency audit, against a real index server on 127.0.0.1 that
serves recorded metadata of real wheels and fairseq's stand-in sources."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest
from indexserver import index
from typer.testing import CliRunner

from auditor.cli import app

INFER = """from fairseq import checkpoint_utils

models, cfg, task = checkpoint_utils.load_model_ensemble_and_task(["hubert_base.pt"], suffix="")
"""


@pytest.fixture
def bump(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept_knowledge: Path) -> Path:
    monkeypatch.delenv("AUDITOR_NO_DEPENDENCIES", raising=False)
    shutil.copytree(kept_knowledge, tmp_path / "cache" / "knowledge")
    (tmp_path / "old.txt").write_text("torch==2.5.1\nfairseq==0.12.2\nnumpy==1.26.4\n", "utf-8")
    (tmp_path / "new.txt").write_text("torch==2.6.0\nfairseq==0.12.2\nnumpy==1.26.4\n", "utf-8")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "infer.py").write_text(INFER, "utf-8")
    return tmp_path


def compare(bump: Path, url: str | None, *more: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [
        "compare", str(bump / "old.txt"), str(bump / "new.txt"), "--project", str(bump / "project"),
        "-f", "json", *(["--index-url", url] if url else []), "--cache-dir", str(bump / "cache"), *more])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, json.loads(result.stdout)


def test_a_call_reached_through_a_dependency_fails_the_check(bump: Path) -> None:
    with index() as served:
        code, report = compare(bump, served.url)
    assert code == 1 and report["verdict"] == "fail"
    assert report["findings"] == []  # the project's own code calls no torch.load
    assert report["dependencies"]["read"] == ["fairseq 0.12.2"]
    [reached] = [f for f in report["dependencies"]["findings"] if f["via"]]
    assert (reached["package"], reached["version"], reached["path"], reached["line"]) == (
        "fairseq", "0.12.2", "fairseq/checkpoint_utils.py", 315)
    assert reached["gates"] is True and reached["consequence"] == "breaks"
    assert reached["via"] == [{"path": "infer.py", "line": 3, "cell": None, "chain": [
        "fairseq.checkpoint_utils.load_model_ensemble_and_task", "fairseq.checkpoint_utils.load_checkpoint_to_cpu"]}]


def test_a_notebook_cell_that_reaches_a_dependency_fails_the_check(bump: Path) -> None:
    (bump / "project" / "infer.py").unlink()
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in (["!pip install fairseq"], INFER.splitlines(keepends=True))]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (bump / "project" / "infer.ipynb").write_text(json.dumps(notebook), "utf-8")
    with index() as served:
        code, report = compare(bump, served.url)
    assert code == 1 and report["verdict"] == "fail"
    [reached] = [f for f in report["dependencies"]["findings"] if f["via"]]
    assert [(w["path"], w["cell"], w["line"]) for w in reached["via"]] == [("infer.ipynb", 2, 3)]


def test_the_text_report_names_the_project_line_and_the_way_through(bump: Path) -> None:
    with index() as served:
        result = CliRunner().invoke(app, [
            "compare", str(bump / "old.txt"), str(bump / "new.txt"), "--project", str(bump / "project"),
            "--index-url", served.url, "--cache-dir", str(bump / "cache")])
    assert "infer.py:3 calls load_model_ensemble_and_task -> load_checkpoint_to_cpu, which reaches fairseq " \
           "0.12.2 fairseq/checkpoint_utils.py:315" in result.stdout


def test_no_dependencies_reads_none(bump: Path) -> None:
    code, report = compare(bump, None, "--no-dependencies", "--harvested")
    assert code == 0 and report["verdict"] == "unchecked"  # never a pass: the dependencies were not read
    assert [n for n in report["notes"] if "--no-dependencies" in n]
    assert report["dependencies"] == {"read": [], "requirements_read": 0, "findings": []}
    assert not (bump / "cache" / "dependencies").exists()


def test_an_unreachable_index_is_never_a_pass(bump: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    code, report = compare(bump, f"http://127.0.0.1:{port}/simple/")
    assert code == 0 and report["verdict"] == "unchecked"
    [said] = [n for n in report["notes"] if "locked dependencies not read" in n]
    assert "fairseq 0.12.2" in said and "numpy 1.26.4" in said


def test_the_markdown_comment_opens_on_the_dependency_and_tables_it(bump: Path) -> None:
    with index() as served:
        result = CliRunner().invoke(app, [
            "compare", str(bump / "old.txt"), str(bump / "new.txt"), "--project", str(bump / "project"),
            "-f", "markdown", "--index-url", served.url, "--cache-dir", str(bump / "cache")])
    head = result.stdout.split("### In the locked dependencies")[0]
    assert "✅" not in head and "**1 call site in locked dependencies**" in head
    assert ("| <code>infer.py:3</code> | load\\_model\\_ensemble\\_and\\_task → load\\_checkpoint\\_to\\_cpu | "
            "fairseq 0.12.2 <code>fairseq/checkpoint_utils.py:315</code> |") in result.stdout


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_dependencies_read_and_clean_say_so(bump: Path, fmt: str) -> None:
    for side, torch in (("old", "2.5.1"), ("new", "2.6.0")):
        (bump / f"{side}.txt").write_text(f"torch=={torch}\ncleanlib==1.0\n", "utf-8")
    metadata = "Metadata-Version: 2.1\nName: cleanlib\nVersion: 1.0\nRequires-Dist: torch\n"
    with index(extra={"cleanlib": [("1.0", metadata)]}) as served:
        result = CliRunner().invoke(app, [
            "compare", str(bump / "old.txt"), str(bump / "new.txt"), "--project", str(bump / "project"),
            "-f", fmt, "--index-url", served.url, "--cache-dir", str(bump / "cache")])
    assert "In the locked dependencies (cleanlib 1.0): no call the crossed changes touch." in result.stdout


def test_requirements_read_and_met_say_so_when_no_dependency_needs_scanning(bump: Path) -> None:
    for side, torch in (("old", "2.5.1"), ("new", "2.6.0")):
        (bump / f"{side}.txt").write_text(f"torch=={torch}\nnumpy==1.26.4\n", "utf-8")
    with index() as served:
        result = CliRunner().invoke(app, [
            "compare", str(bump / "old.txt"), str(bump / "new.txt"), "--project", str(bump / "project"),
            "--index-url", served.url, "--cache-dir", str(bump / "cache")])
        code, report = compare(bump, served.url)
    assert report["dependencies"] == {"read": [], "requirements_read": 1, "findings": []}
    said = "In the locked dependencies: the requirements of 1 package(s) read; the new pins meet every one on the torch family."
    assert said in result.stdout
