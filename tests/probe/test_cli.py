"""`auditor probe` and `--probe` through typer's runner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app

pytestmark = pytest.mark.slow
runner = CliRunner()


def run(*args: object, env: dict[str, str] | None = None):
    return runner.invoke(app, [str(a) for a in args], env=env)


def test_probe_writes_the_contract_json_and_says_why_a_side_cannot_be_built(scratch: Path) -> None:
    empty = scratch / "empty-index"
    empty.mkdir(exist_ok=True)
    result = run("probe", "--from", "1.12.1", "--to", "2.13.0", "--env-new", sys.executable, "--offline",
                 "--no-pip-config", "--index-url", empty.as_uri(), "--torch-index", "",
                 "--cache-dir", scratch / "cli-cache", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["schema_version"] == "1"
    assert document["transitions"] == [{"package": "torch", "from": "1.12.1", "to": "2.13.0",
                                        "direction": "upgrade", "environment": None, "variant": None}]
    floor = next(p for p in document["probes"] if p["change"] == "torch-floor-divide-rounds-toward-floor")
    assert set(floor) == {"change", "status", "old", "new", "reason", "fixes"}  # fixes: issue 15, an addition
    assert floor["status"] == "skipped" and floor["reason"].startswith("torch 1.12.1: cannot install torch 1.12.1")
    assert all(p["status"] == "skipped" and p["reason"] for p in document["probes"])


def test_probe_in_text_shows_both_outputs(scratch: Path) -> None:
    # both sides on the installed torch: every crossed entry is skipped with the same reason
    result = run("probe", "--from", "1.12.1", "--to", "2.13.0", "--env-old", sys.executable,
                 "--env-new", sys.executable, "--cache-dir", scratch / "cli-cache")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("torch 1.12.1 -> 2.13.0\n")
    assert "skipped         torch-floor-divide-rounds-toward-floor" in result.stdout
    assert "do not cross this change" in result.stdout


def test_an_interpreter_that_does_not_exist_exits_2_without_a_traceback() -> None:
    result = run("probe", "--from", "1.12.1", "--to", "2.13.0", "--python-old", "/nonexistent/python")
    assert result.exit_code == 2
    assert result.stderr.strip() == "auditor: no such interpreter: /nonexistent/python"
    bad = run("probe", "--from", "1.12.1", "--to", "2.13.0", "--installer", "conda")
    assert bad.exit_code == 2 and "--installer" in bad.stderr
    unknown = run("probe", "--package", "nosuchpackage", "--from", "1", "--to", "2")
    assert unknown.exit_code == 2 and "knows no package 'nosuchpackage'" in unknown.stderr


def test_scan_with_probe_attaches_outcomes(scratch: Path, examples: Path) -> None:
    # pip's configuration says no index: only find-links, where torch 1.12.1 is not
    (scratch / "no-wheels").mkdir(exist_ok=True)
    result = run("scan", examples / "project", "--from", "1.12.1", "--to", "2.13.0", "--probe",
                 "--cache-dir", scratch / "cli-cache", "--format", "json",
                 env={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(scratch / "no-wheels")})
    assert result.exit_code == 1, result.output  # findings, as without --probe
    document = json.loads(result.stdout)
    assert document["findings"]
    probes = {p["change"]: p for p in document["probes"]}
    assert probes["torch-floor-divide-rounds-toward-floor"]["status"] == "skipped"
    assert "cannot install torch 1.12.1" in probes["torch-floor-divide-rounds-toward-floor"]["reason"]
