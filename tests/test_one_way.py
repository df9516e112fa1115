"""One way through the pipeline: a command builds one request, the pipeline runs every stage
(the fix engine included) and hands the renderers a finished result."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

from typer.testing import CliRunner

from auditor import pipeline
from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.models import Gate
from auditor.requests import AuditRequest, EnvironmentChoice, Fixes, VersionPair
from auditor.scan.project import ScanOptions
from auditor.settings import probe_settings

PACKAGE = Path(__file__).resolve().parent.parent / "auditor"
ENGINE = {"fix_project", "prove"}  # the stages of `auditor fix` the pipeline runs

WINDOWS = """import torch


def centre(starts: torch.Tensor, window: int) -> torch.Tensor:
    return torch.floor_divide(starts - starts.max() // 2, window)
"""


def engine_calls(path: Path) -> set[str]:
    """The fix engine's stages a module imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("auditor.fix"):
            found |= {alias.name for alias in node.names} & ENGINE
    return found


def test_only_the_pipeline_runs_the_fix_engine() -> None:
    callers = {
        str(path.relative_to(PACKAGE.parent)): sorted(calls)
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.parent.name != "fix" and path.name != "pipeline.py" and (calls := engine_calls(path))
    }
    assert callers == {}
    assert engine_calls(PACKAGE / "pipeline.py") == ENGINE  # the check reads the imports it looks for


def test_run_makes_the_rewrites_the_request_asks_for(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "windows.py").write_text(WINDOWS, "utf-8")

    def request(fixes: Fixes | None) -> AuditRequest:
        return AuditRequest(VersionPair("torch", "1.12.1", "1.13.0"), tmp_path, EnvironmentChoice(), None,
                            ScanOptions(), None, Gate(), fixes=fixes)

    bare = pipeline.run(request(None), kb)
    assert bare.result.findings and bare.fixes is None and not bare.suggested
    done = pipeline.run(request(Fixes(tmp_path, rewrite=True, suggest=True, shown="proj")), kb)
    assert done.result == bare.result
    assert done.fixes is not None
    assert [f.path for f in done.fixes.changed] == ["windows.py"]
    assert "rounding_mode='trunc'" in done.fixes.changed[0].new_text
    (suggested,) = done.suggested.values()
    assert suggested.command == "auditor fix --from 1.12.1 --to 1.13.0 proj --keep-old --write"
    assert (tmp_path / "windows.py").read_text("utf-8") == WINDOWS  # nothing written


def test_sarif_of_scan_carries_the_pipeline_s_fixes(tmp_path: Path) -> None:
    (tmp_path / "windows.py").write_text(WINDOWS, "utf-8")
    out = tmp_path.parent / f"{tmp_path.name}.sarif"
    run = CliRunner().invoke(app, ["scan", str(tmp_path), "--from", "1.12.1", "--to", "1.13.0", "--format", "sarif",
                                   "--no-cache", "-o", str(out)])
    assert run.exit_code == 1, run.output
    results = json.loads(out.read_text("utf-8"))["runs"][0]["results"]
    fixed = [r for r in results if "fixes" in r]
    assert fixed and fixed[0]["fixes"][0]["description"]["text"].startswith("auditor fix --keep-old")


def test_long_parameter_lists_are_requests() -> None:
    """The git range and the probe provisioning travel as typed objects, not as a dozen options."""
    assert len(inspect.signature(pipeline.compare_range).parameters) <= 4
    assert len(inspect.signature(probe_settings).parameters) <= 3
