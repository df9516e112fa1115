"""Generated code nests deep (a sum of thousands of terms): analysed where Python allows it,
otherwise skipped with a reason that says so, and the scan goes on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.pipeline import scan_changes
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_file


@pytest.fixture(scope="module")
def index() -> RuleIndex:
    return RuleIndex.build(scan_changes(KnowledgeBase.load(), "torch", "1.12.1", "1.13.0"))


def deep_sum(tmp_path: Path, terms: int) -> Path:
    module = tmp_path / f"sum_{terms}.py"
    module.write_text("import torch\nx = torch.arange(-4, 4)\ny = " + " + ".join(["x"] * terms) + " // 2\n")
    return module


def test_a_sum_of_thousands_of_terms_is_analysed(index: RuleIndex, tmp_path: Path) -> None:
    limit = sys.getrecursionlimit()
    findings, skipped = scan_file(deep_sum(tmp_path, 2500), "sum.py", index)
    assert sys.getrecursionlimit() == limit  # put back
    if sys.version_info >= (3, 11):
        assert skipped == []
        assert [(f.line, f.symbol) for f in findings] == [(3, "torch.Tensor.__floordiv__")]
    else:  # each Python call also recurses in C there: the limit stays, the file is skipped
        assert findings == []
        assert [s.reason for s in skipped] == ["nested too deeply to analyse"]


def test_a_source_too_deep_for_python_is_skipped_with_a_reason(index: RuleIndex, tmp_path: Path) -> None:
    findings, skipped = scan_file(deep_sum(tmp_path, 20000), "sum.py", index)
    assert findings == []
    # 3.11 and later cannot build its syntax tree; 3.10 builds it but cannot follow it
    (reason,) = [s.reason for s in skipped]
    assert reason.startswith("cannot parse: maximum recursion depth") or reason == "nested too deeply to analyse"
