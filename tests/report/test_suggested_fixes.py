"""Where reviewers see fixes (issue 15): SARIF `fixes` with replacements that rebuild the
engine's rewrite, and the Markdown comment's collapsed "Suggested fix" per change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft4Validator
from typer.testing import CliRunner

from auditor import pipeline
from auditor.cli import app
from auditor.fix.apply import fix_project
from auditor.knowledge.base import KnowledgeBase
from auditor.pipeline import suggestions
from auditor.report import markdown, sarif
from auditor.report.suggest import Replacement, replacements

SCHEMA = Path(__file__).resolve().parents[1] / "fixtures" / "report" / "sarif-schema-2.1.0.json"

WINDOWS = """import torch


def centre(starts: torch.Tensor, window: int) -> torch.Tensor:
    centred = starts - starts.max() // 2
    return torch.floor_divide(centred, window)


def untouched(x):
    return x + 1
"""

NUMPY = """\"\"\"Uses an alias NumPy 2 removed.\"\"\"
import numpy as np


def table(path):
    return np.msort(np.loadtxt(path))
"""


def apply(text: str, found: list[Replacement]) -> str:
    """The SARIF replacements applied to the file's text, as a consumer would (last first)."""
    lines = text.splitlines()
    for r in sorted(found, key=lambda r: r.start, reverse=True):
        new = r.text.split("\n")
        if r.end < r.start:
            lines[r.start - 1:r.start - 1] = new
        else:
            assert r.end_column == len(lines[r.end - 1]) + 1  # whole lines, as the region says
            lines[r.start - 1:r.end] = new
    return "\n".join(lines) + "\n"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "windows.py").write_text(WINDOWS, "utf-8")
    (tmp_path / "table.py").write_text(NUMPY, "utf-8")
    return tmp_path


def test_sarif_results_carry_replacements_that_rebuild_the_rewrite(kb: KnowledgeBase, project: Path) -> None:
    result = pipeline.scan(project, "1.12.1", "1.13.0", kb, "torch")
    fixed = fix_project(result, project, "keep-old")
    document = json.loads(sarif.render(result, fixes=fixed))
    assert Draft4Validator(json.loads(SCHEMA.read_text("utf-8"))).is_valid(document)
    results = document["runs"][0]["results"]
    with_fix = [r for r in results if "fixes" in r]
    assert len(with_fix) == 2 == len(results)  # `//` on line 5, floor_divide on line 6
    lines = sorted(r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in with_fix)
    assert lines == [5, 6]
    (fix,) = with_fix[0]["fixes"]
    assert fix["description"]["text"].startswith("auditor fix --keep-old: truncates toward zero")
    change = fix["artifactChanges"][0]
    assert change["artifactLocation"] == {"uri": "windows.py", "uriBaseId": "%SRCROOT%"}
    every = [Replacement(
        r["deletedRegion"]["startLine"], r["deletedRegion"]["endLine"], r["insertedContent"]["text"],
        r["deletedRegion"]["endColumn"],
    ) for item in with_fix for r in item["fixes"][0]["artifactChanges"][0]["replacements"]]
    assert apply(WINDOWS, every) == fixed.files[0].new_text  # one line each: the two fixes apply alone or together
    assert "torch.div(starts.max(), 2, rounding_mode='trunc')" in fixed.files[0].new_text


def test_an_added_import_goes_with_the_site_and_a_report_without_fixes_has_none(
    kb: KnowledgeBase, project: Path,
) -> None:
    result = pipeline.scan(project, "1.26.0", "2.0.0", kb, "numpy")
    fixed = fix_project(result, project, "keep-old")
    (table,) = [f for f in fixed.changed if f.path == "table.py"]
    found = replacements(table)
    assert [r for r in found if r.end < r.start] == [Replacement(2, 1, "import numpy")]  # after the docstring
    assert apply(NUMPY, found) == table.new_text
    document = json.loads(sarif.render(result, fixes=fixed))
    (site,) = [r for r in document["runs"][0]["results"] if "fixes" in r]
    assert len(site["fixes"][0]["artifactChanges"][0]["replacements"]) == 2
    assert all("fixes" not in r for r in json.loads(sarif.render(result))["runs"][0]["results"])


def test_markdown_shows_a_collapsed_suggested_fix_per_change_with_the_command(
    kb: KnowledgeBase, project: Path,
) -> None:
    result = pipeline.scan(project, "1.12.1", "1.13.0", kb, "torch")
    suggested = suggestions(result, project, "keep-old")
    assert set(suggested) == {"torch-floor-divide-rounds-toward-floor"}
    text = markdown.render(result, suggested=suggested)
    block = text[text.index("<details><summary>Suggested fix"):]
    block = block[:block.index("</details>")]
    assert "Suggested fix (keep-old: 2 call sites rewritten)" in block
    assert "\n-    return torch.floor_divide(centred, window)\n" in block
    assert "\n+    return torch.div(centred, window, rounding_mode='trunc')\n" in block
    assert f"auditor fix --from 1.12.1 --to 1.13.0 {project} --keep-old --write" in block
    assert "Suggested fix" not in markdown.render(result)


def test_compare_on_the_example_names_the_locks_in_the_command(examples: Path, tmp_path: Path) -> None:
    copy = tmp_path / "project"
    shutil.copytree(examples / "project", copy)
    old, new = examples / "requirements-old.txt", examples / "requirements-new.txt"
    out = tmp_path / "comment.md"
    run = CliRunner().invoke(app, ["compare", str(old), str(new), "--project", str(copy), "--format", "markdown",
                                   "-o", str(out)])
    assert run.exit_code == 1, run.output
    text = out.read_text("utf-8")
    assert f"auditor fix {old} {new} --project {copy} --keep-old --write" in text
    assert "+    sentinel = torch.tensor(300).to(torch.int8)" in text
    assert (copy / "quantize.py").read_text("utf-8") == (examples / "project" / "quantize.py").read_text("utf-8")
