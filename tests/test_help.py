"""What `--help` says, as a user reads it (typer's rich help, wide enough not to wrap)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from auditor.cli import app

WIDE = {"COLUMNS": "300", "NO_COLOR": "1"}


def helped(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", [(), ("compare",), ("scan",), ("probe",), ("lock", "diff"), ("kb", "list"),
                                     ("kb", "verify"), ("github",)])
def test_flags_show_no_type(command: tuple[str, ...]) -> None:
    text = helped(*command)
    assert "--help" in text
    assert "<bool>" not in text


def test_version_and_debug_are_described() -> None:
    text = helped()
    assert "--version" in text and "Show the version and exit." in text
    assert "--debug" in text and "traceback" in text


@pytest.mark.parametrize("command", ["compare", "scan"])
def test_config_help_names_the_pyproject_table(command: str) -> None:
    assert "(default: [tool.auditor] in the project's pyproject.toml)" in helped(command)


def test_kb_list_to_is_described() -> None:
    line = next(line for line in helped("kb", "list").splitlines() if "--to " in line)
    assert "With --from: the version after the transition." in line


def test_probe_no_cache_speaks_of_probes() -> None:
    text = helped("probe")
    line = next(line for line in text.splitlines() if "--no-cache" in line)
    assert "Scan every file again" not in line
    assert "run every probe again" in line


@pytest.mark.parametrize("command", ["probe", "compare", "scan"])
def test_the_probe_provisioning_options_are_on_every_command_that_probes(command: str) -> None:
    from auditor.cli import PROBE_OPTIONS

    text = helped(command)
    for name in PROBE_OPTIONS:
        assert "--" + name.replace("_", "-") + " " in text, name
    assert "--allow-cuda" in text and "--torch-index" in text
