"""The rules that keep generated (harvested) changes precise on real code (docs/precision.md,
"Generated changes"): each on small real sources or real shipped candidates."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from auditor import pipeline
from auditor.harvest.generate import Open, matches, spec_change
from auditor.harvest.model import Param
from auditor.knowledge import KnowledgeBase
from auditor.models import SpecChange
from tests.harvest.test_coverage import candidate

EXPORT = (Param("model", "positional", None), Param("args", "positional", None), Param("f", "positional", None),
          Param("opset_version", "positional", "None"), Param("use_external_data_format", "positional", "False"))
SPREAD = """\
import torch

def to_onnx(model, x, path, **kwargs):
    torch.onnx.export(model, x, path, **kwargs)            # 4: the caller's kwargs decide
def explicit(model, x, path):
    torch.onnx.export(model, x, path, use_external_data_format=True)   # 6: given here
def built(model, x, path):
    options = dict(use_external_data_format=True)
    torch.onnx.export(model, x, path, **options)           # 9: built in view
def starred(*args):
    torch.onnx.export(*args)                               # 11: the caller's args decide
"""


def _lines(tmp_path: Path, source: str, changes: list[SpecChange]) -> list[int]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "m.py").write_text(source, "utf-8")
    result = pipeline.scan(project, "2.0.0", "2.1.0", KnowledgeBase(tuple(changes)))
    return sorted(f.line for f in result.findings)


def test_a_spread_of_unknown_content_is_no_finding_of_a_generated_change(tmp_path: Path) -> None:
    removed = candidate("parameter-removed", "torch.onnx.export", parameter="use_external_data_format",
                        params=EXPORT)
    found = matches(removed)
    assert not isinstance(found, Open) and all(m.decided for m in found)
    change = spec_change(removed, found)
    assert _lines(tmp_path, SPREAD, [change]) == [6, 9]
    # the same matcher as a curated entry has it: the spread is a low-confidence finding
    loose = replace(change, matches=tuple(replace(m, decided=False) for m in change.matches))
    assert _lines(tmp_path, SPREAD, [loose]) == [4, 6, 9]


def test_a_default_change_is_not_reported_through_a_spread_or_starred_args(tmp_path: Path) -> None:
    changed = candidate("default-changed", "torch.onnx.export", parameter="use_external_data_format",
                        params=EXPORT)
    found = matches(changed)
    assert not isinstance(found, Open)
    change = spec_change(changed, found)
    # 6 and 9 pass it; 4 and 11 may or may not: no finding for a generated change
    assert _lines(tmp_path, SPREAD + "torch.onnx.export(m, x, p)\n", [change]) == [12]
    loose = replace(change, matches=tuple(replace(m, decided=False) for m in change.matches))
    assert _lines(tmp_path, SPREAD + "torch.onnx.export(m, x, p)\n", [loose]) == [4, 11, 12]
