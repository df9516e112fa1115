"""What the harvest tests share: `kb coverage` of the shipped knowledge, run once a session."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner, Result

from auditor.cli import app


@pytest.fixture(scope="session")
def shipped_coverage() -> Result:
    """`auditor kb coverage --format json` on the shipped knowledge and harvest: its exit code and
    its JSON report. Every entry is judged against every candidate, a few seconds' work."""
    return CliRunner().invoke(app, ["kb", "coverage", "--format", "json"])
