"""Hostile and careless command lines, each with the exit code and the message a user must get.

One table, driven through the real CLI: a new format, option or command joins it with a row.
Exit 2 is the user's input (the message names it), 3 the tool's own failure, never 1 (findings)
and never 0 when nothing was checked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app

ROOT = Path(__file__).resolve().parents[1]
OLD = str(ROOT / "examples" / "requirements-old.txt")
NEW = str(ROOT / "examples" / "requirements-new.txt")
PROJECT = str(ROOT / "examples" / "project")


def nothing(tmp: Path) -> None:
    pass


def a_file(tmp: Path) -> None:
    (tmp / "file").write_text("not a folder\n", "utf-8")


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # "{tmp}" stands for the case's temporary folder
    code: int
    message: str  # expected on stderr
    setup: Callable[[Path], None] = nothing
    env: dict[str, str] = field(default_factory=dict)


CASES = [
    # item 3: a project that is not there is a typo, not a green audit
    Case("compare-missing-project", ("compare", OLD, NEW, "--project", "{tmp}/no-such-dir", "--fail-on", "none"),
         2, "{tmp}/no-such-dir: the project to scan does not exist"),
    Case("compare-project-under-a-file", ("compare", OLD, NEW, "--project", "{tmp}/file/sub", "--fail-on", "none"),
         2, "{tmp}/file/sub: the project to scan cannot be read: Not a directory", a_file),
    Case("compare-project-is-a-device", ("compare", OLD, NEW, "--project", "/dev/null", "--fail-on", "none"),
         2, "/dev/null: the project to scan is neither a folder nor a file"),
    Case("scan-missing-path", ("scan", "{tmp}/missing", "--from", "1.12.1", "--to", "1.13.0"),
         2, "{tmp}/missing: the project to scan does not exist"),
    Case("scan-missing-path-no-crossed-change", ("scan", "{tmp}/missing", "--from", "1.13.0", "--to", "1.13.1"),
         2, "{tmp}/missing: the project to scan does not exist"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path) -> None:
    case.setup(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in case.args]
    result = CliRunner().invoke(app, args, env={"NO_COLOR": "1", **case.env})
    assert result.exit_code == case.code, (result.stdout, result.stderr)
    assert case.message.replace("{tmp}", str(tmp_path)) in result.stderr
    assert "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
