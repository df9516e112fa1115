"""Call-site probes: which flagged expressions may be evaluated, and what they show."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.models import Finding
from auditor.probe.callsite import annotate, call_sites, find_sites
from auditor.probe.runner import run_batch

SOURCE = '''
import os
import torch


def quantise():
    table = torch.tensor([0, 64, 200], dtype=torch.int8)
    return torch.tensor(300, dtype=torch.int8)


def windows(starts):
    n = -5
    t = torch.arange(n, 5)
    a = t // 2
    b = starts // 2
    c = torch.floor_divide(torch.tensor([-3, 3]), 2)
    d = torch.floor_divide(torch.tensor(os.getpid()), 2)
    t2 = t
    t2 = t2 + 1
    e = t2 // 2
    return a, b, c, d, e
'''


def finding(change: str, line: int, column: int, symbol: str = "torch.tensor") -> Finding:
    return Finding(change, symbol, "mod.py", line, column, None, "high", "message.", "")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mod.py").write_text(SOURCE, "utf-8")
    return tmp_path


def test_only_literal_only_expressions_are_taken(project: Path, kb: KnowledgeBase) -> None:
    overflow = "torch-tensor-int-overflow-raises"
    floor = "torch-floor-divide-rounds-toward-floor"
    findings = [
        finding(overflow, 7, 13), finding(overflow, 8, 12),
        finding(floor, 14, 9, "torch.Tensor.__floordiv__"),  # t // 2, t bound to torch.arange(n, 5)
        finding(floor, 15, 9, "torch.Tensor.__floordiv__"),  # starts is a parameter
        finding(floor, 16, 9, "torch.floor_divide"),
        finding(floor, 17, 9, "torch.floor_divide"),  # os.getpid() is not a literal
        finding(floor, 20, 9, "torch.Tensor.__floordiv__"),  # t2 is assigned twice
    ]
    sites = {(s.finding.line): s for s in call_sites(findings, kb.entries, project)}
    assert sorted(sites) == [7, 8, 14, 16]
    assert sites[14].code.splitlines()[:4] == [
        "import torch", "n = -5", "t = torch.arange(n, 5)", "try:",
    ]
    assert "print(repr(t // 2))" in sites[14].code
    assert "os" not in sites[16].code


def test_the_probe_of_a_call_site_runs_and_annotates_its_finding(project: Path, kb: KnowledgeBase) -> None:
    from auditor.models import ProbeRun

    site = call_sites([finding("torch-tensor-int-overflow-raises", 8, 12)], kb.entries, project)[0]
    batch = run_batch({site.id: site.code}, ["torch"])
    assert batch.results[site.id].output == "RuntimeError: value cannot be converted to type int8 without overflow"
    runs = {site.id: (ProbeRun("1.12.1", "tensor(44, dtype=torch.int8)"),
                      ProbeRun("2.13.0+cpu", batch.results[site.id].output))}
    (annotated,) = annotate([site.finding], [site], runs)
    assert annotated.message == (
        "message. On this line, 1.12.1: tensor(44, dtype=torch.int8); "
        "2.13.0+cpu: RuntimeError: value cannot be converted to type int8 without overflow."
    )


def test_files_without_import_torch_and_missing_files_are_left_alone(tmp_path: Path, kb: KnowledgeBase) -> None:
    (tmp_path / "mod.py").write_text("import torch as T\nx = T.tensor(300, dtype=T.int8)\n", "utf-8")
    assert call_sites([finding("torch-tensor-int-overflow-raises", 2, 5)], kb.entries, tmp_path) == []
    cell = Finding("torch-tensor-int-overflow-raises", "torch.tensor", "nb.ipynb", 1, 1, 2, "high", "m", "")
    assert call_sites([cell], kb.entries, tmp_path) == []


def test_a_notebook_cell_is_read_with_the_cells_before_it(examples: Path, kb: KnowledgeBase) -> None:
    """explore.ipynb binds `positions` in cell 3, line 1, and divides it on line 2; the imports
    are in cell 2, behind an IPython magic."""
    from auditor.scan import RuleIndex, scan_file

    project = examples / "project"
    findings, _ = scan_file(project / "explore.ipynb", "explore.ipynb", RuleIndex.build(kb.entries))
    floor = [f for f in findings if f.change == "torch-floor-divide-rounds-toward-floor"]
    assert [(f.cell, f.line) for f in floor] == [(3, 2)]
    (site,) = call_sites(floor, kb.entries, project)
    assert site.finding == floor[0]
    assert site.code.splitlines()[:2] == ["import torch", "positions = torch.arange(-8, 8)"]
    assert "print(repr(positions // 2))" in site.code
    batch = run_batch({site.id: site.code}, ["torch"])
    assert batch.results[site.id].output == "tensor([-4, -4, -3, -3, -2, -2, -1, -1,  0,  0,  1,  1,  2,  2,  3,  3])"


@pytest.mark.network
def test_scan_with_probe_shows_both_versions_on_the_projects_own_line(examples: Path) -> None:
    """Uses the user cache's torch 1.12.1 environment (about 740 MB the first time)."""
    result = CliRunner().invoke(app, ["scan", str(examples / "project"), "--from", "1.12.1", "--to", "2.13.0",
                                      "--probe", "--format", "json"])
    assert result.exit_code == 1, result.output
    findings = {(f["path"], f["line"]): f for f in json.loads(result.stdout)["findings"]}
    message = findings[("quantize.py", 9)]["message"]
    assert message.endswith(textwrap.dedent("""\
        On this line, 1.12.1: tensor(44, dtype=torch.int8); 2.13.0+cpu: RuntimeError: value cannot be converted to type int8 without overflow."""))


HOSTILE = '''
import torch

n = 10**9
torch.floor_divide(torch.tensor(2**10**10), 2)
torch.floor_divide(torch.tensor([0] * 10**9), 2)
torch.floor_divide(torch.tensor([0] * n), 2)
torch.floor_divide(torch.zeros(10**5, 10**5), 2)
torch.floor_divide(torch.arange(0, 10**12), 2)
torch.floor_divide(torch.tensor("%0999999999d" % 1), 2)
torch.floor_divide(torch.tensor(((2**64)**64)**64), 2)
torch.floor_divide(torch.tensor([0] * torch.tensor(10**9)), 2)
torch.floor_divide(torch.tensor([[[0] * 1000] * 1000] * 1000), 2)
torch.floor_divide(torch.tensor([-7, 7]) * 2**62, 2)
torch.floor_divide(torch.arange(-5, 5) ** 2, 2)
'''


def test_sites_that_would_compute_too_much_are_left_unprobed_with_a_reason(tmp_path: Path, kb: KnowledgeBase) -> None:
    (tmp_path / "hostile.py").write_text(HOSTILE, "utf-8")
    floor = "torch-floor-divide-rounds-toward-floor"
    findings = [
        Finding(floor, "torch.floor_divide", "hostile.py", line, 1, None, "high", "message.", "")
        for line in range(5, 16)
    ]
    start = time.process_time()  # CPU: a guard against unbounded evaluation, not a speed figure
    sites, unprobed = find_sites(findings, kb.entries, tmp_path)
    assert time.process_time() - start < 1
    assert {s.finding.line for s in sites} == {14, 15}  # bounded: a tensor times a literal, a small range
    reasons = {int(note.split(":")[1]): note for note in unprobed}
    assert set(reasons) == set(range(5, 14))
    assert "hostile.py:5: not evaluated on either version: an integer power of about 2e+10 bits" in reasons[5]
    assert "a sequence of 1e+09 items" in reasons[6] and "a sequence of 1e+09 items" in reasons[7]
    assert "torch.zeros would make 1e+10 elements" in reasons[8]
    assert "torch.arange would make 1e+12 elements" in reasons[9]
    assert "string formatting" in reasons[10]
    assert "integer power" in reasons[11]
    assert "not known here" in reasons[12]
    assert "a sequence of 1e+09 items" in reasons[13]  # nested: a billion elements in three lists
