"""Hostile and careless command lines, each with the exit code and the message a user must get.

One table, driven through the real CLI: a new format, option or command joins it with a row.
Exit 2 is the user's input (the message names it), 3 the tool's own failure, never 1 (findings)
and never 0 when nothing was checked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app, handles_errors

ROOT = Path(__file__).resolve().parents[1]
OLD = str(ROOT / "examples" / "requirements-old.txt")
NEW = str(ROOT / "examples" / "requirements-new.txt")
PROJECT = str(ROOT / "examples" / "project")


def nothing(tmp: Path) -> None:
    pass


def a_file(tmp: Path) -> None:
    (tmp / "file").write_text("not a folder\n", "utf-8")


def a_file_with_a_nul_byte(tmp: Path) -> None:
    (tmp / "nul.py").write_bytes(b"import torch\nx = torch.floor_divide(a, 2)\x00\n")


def a_folder(tmp: Path) -> None:
    (tmp / "folder").mkdir()
    (tmp / "folder" / "README.md").write_text("no Python here\n", "utf-8")


def a_config_ignoring_a_typo(tmp: Path) -> None:
    (tmp / "train.py").write_text("import torch\n", "utf-8")
    (tmp / "pyproject.toml").write_text('[tool.auditor]\nignore = ["torch-floor-divide-rounds-toward-flor"]\n', "utf-8")


def a_notebook_whose_cells_are_text(tmp: Path) -> None:
    (tmp / "odd.ipynb").write_text('{"nbformat": 4, "cells": "import torch; torch.floor_divide(a, 2)"}', "utf-8")


def a_fake_python(tmp: Path) -> None:
    """An executable that answers a Python script with something else."""
    fake = tmp / "python"
    fake.write_text("#!/bin/sh\necho hello\n", "utf-8")
    fake.chmod(0o755)


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # "{tmp}" stands for the case's temporary folder
    code: int
    message: str  # expected on stderr, or on stdout for a report that says what it skipped
    setup: Callable[[Path], None] = nothing
    env: dict[str, str] = field(default_factory=dict)
    stream: str = "stderr"


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
    # item 17: a probe option without --probe is not ignored in silence
    Case("compare-probe-option-without-probe", ("compare", OLD, NEW, "--allow-cuda", "--torch-index", ""),
         2, "--torch-index, --allow-cuda: only used with --probe"),
    Case("probe-unknown-installer", ("probe", "--from", "2.5.0", "--to", "2.6.0", "--installer", "conda"),
         2, "'conda' is not one of 'auto', 'uv', 'pip'"),
    # item 19: a file the parser refuses for a NUL byte is skipped with its line
    Case("scan-file-with-a-nul-byte", ("scan", "{tmp}", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "skipped nul.py: line 2: a NUL byte: not Python source", a_file_with_a_nul_byte, stream="stdout"),
    # found while looking: nothing checked is said, a name nobody knows is an error
    Case("scan-folder-without-python", ("scan", "{tmp}/folder", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "skipped .: no .py or .ipynb file to scan in this folder", a_folder, stream="stdout"),
    Case("kb-list-unknown-package", ("kb", "list", "--package", "nosuch"),
         2, "the knowledge base knows no package 'nosuch' (it knows torch"),
    Case("kb-list-unknown-package-in-a-range", ("kb", "list", "--package", "nosuch", "--from", "1", "--to", "2"),
         2, "the knowledge base knows no package 'nosuch'"),
    Case("kb-verify-unknown-package", ("kb", "verify", "--package", "nosuch"),
         2, "the knowledge base knows no package 'nosuch'"),
    Case("kb-list-unknown-kind", ("kb", "list", "--kind", "nosuch"), 2, "--kind: no entry is of kind 'nosuch' (kinds: "),
    Case("probe-negative-timeout", ("probe", "--from", "2.5.0", "--to", "2.6.0", "--timeout", "-1"),
         2, "Invalid value for '--timeout'"),
    Case("probe-negative-memory-limit", ("probe", "--from", "2.5.0", "--to", "2.6.0", "--memory-limit", "-5"),
         2, "Invalid value for '--memory-limit'"),
    Case("compare-unknown-format", ("compare", OLD, NEW, "--format", "xml"), 2, "Invalid value for '--format'"),
    Case("compare-output-in-a-missing-folder", ("compare", OLD, NEW, "--output", "{tmp}/missing/out.txt"),
         2, "{tmp}/missing/out.txt: cannot write: No such file or directory"),
    Case("compare-output-is-a-folder", ("compare", OLD, NEW, "--output", "{tmp}"), 2, "{tmp}: cannot write: Is a directory"),
    Case("lock-show-a-folder", ("lock", "show", "{tmp}"), 2, "{tmp}: cannot read: Is a directory"),
    Case("lock-show-an-empty-file", ("lock", "show", "/dev/null"), 2, "/dev/null:1: empty file: a lock lists its packages, this one has none"),
    Case("compare-python-version-not-a-version", ("compare", OLD, NEW, "--python-version", "abc"),
         2, "Invalid value for '--python-version': 'abc' is not a Python version such as 3.11"),
    Case("scan-python-version-not-a-version", ("scan", PROJECT, "--from", "1.12.1", "--to", "1.13.0",
                                               "--python-version", "3.x"), 2, "'3.x' is not a Python version"),
    Case("scan-config-ignores-an-unknown-id", ("scan", "{tmp}", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "note: {tmp}/pyproject.toml: ignore names no knowledge entry 'torch-floor-divide-rounds-toward-flor'; "
         "it ignores nothing", a_config_ignoring_a_typo, stream="stdout"),
    Case("scan-notebook-whose-cells-are-not-a-list", ("scan", "{tmp}", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "skipped odd.ipynb: not a notebook: its cells are a str, not a list", a_notebook_whose_cells_are_text,
         stream="stdout"),
    # item 8: faults that are the user's input are exit 2 with the reason, not a crash
    Case("probe-cache-dir-under-a-file", ("probe", "--from", "2.5.0", "--to", "2.6.0", "--cache-dir", "{tmp}/file/c"),
         2, "{tmp}/file/c: cannot keep probe environments here: Not a directory", a_file),
    Case("probe-env-that-is-not-python", ("probe", "--from", "2.5.0", "--to", "2.6.0", "--no-cache",
                                          "--env-old", "{tmp}/python", "--env-new", "{tmp}/python"),
         2, "{tmp}/python: not a Python interpreter (it replied 'hello' to a Python script)", a_fake_python),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path) -> None:
    case.setup(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in case.args]
    result = CliRunner().invoke(app, args, env={"NO_COLOR": "1", "COLUMNS": "300", **case.env})
    assert result.exit_code == case.code, (result.stdout, result.stderr)
    assert case.message.replace("{tmp}", str(tmp_path)) in getattr(result, case.stream)
    assert "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


FAKE_UV_PACKAGE = """
def find_uv_bin():
    return {uv!r}
"""
FAKE_UV = """#!/bin/sh
# answers `uv pip compile` with something that is not a list of pins
echo 'this is not a pin'
"""


def auditor_process(
    args: list[str], tmp: Path, fakes: Path | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    path = [str(fakes)] if fakes else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(ROOT)]), "NO_COLOR": "1", **extra}
    return subprocess.run([sys.executable, "-m", "auditor", *args], capture_output=True, text=True, env=env,
                          cwd=tmp, timeout=300, check=False)


@pytest.mark.parametrize("debug", ["", "--debug", "AUDITOR_DEBUG=1"])
def test_a_malformed_installer_reply_is_a_crash_exit_3_with_one_line(tmp_path: Path, debug: str) -> None:
    """uv is the tool's own helper, not the user's input: its nonsense is the tool failing (3),
    said in one line, the traceback only with --debug."""
    fakes = tmp_path / "fakes"
    (fakes / "uv").mkdir(parents=True)
    uv = fakes / "uv-bin"
    uv.write_text(FAKE_UV, "utf-8")
    uv.chmod(0o755)
    (fakes / "uv" / "__init__.py").write_text(FAKE_UV_PACKAGE.format(uv=str(uv)), "utf-8")
    args = ["probe", "--from", "2.5.0", "--to", "2.6.0", "--no-cache", "--no-pip-config", "--torch-index", "",
            "--python-old", sys.executable, "--python-new", sys.executable]
    done = auditor_process(["--debug", *args] if debug == "--debug" else args, tmp_path, fakes,
                           **dict([debug.split("=")]) if "=" in debug else {})
    assert done.returncode == 3, done.stderr
    lines = done.stderr.splitlines()
    failed = [line for line in lines if "failed" in line]
    assert failed == [f"auditor: probe failed unexpectedly: RuntimeError: {uv} pip compile replied with a line "
                      "that is not a pin: 'this is not a pin'" + ("" if debug else "; --debug shows the traceback")]
    if debug:
        assert "Traceback (most recent call last)" in done.stderr
    else:  # progress lines, then the one line that says what failed
        assert lines[-1] == failed[0]
        assert "Traceback" not in done.stderr


def test_every_command_maps_failures_to_exit_codes() -> None:
    """compare, scan, lock, kb, probe and github all go through the one error handler."""
    import typer.main

    group = typer.main.get_command(app)
    commands = []
    stack = [group]
    while stack:
        current = stack.pop()
        for name, command in getattr(current, "commands", {}).items():
            if getattr(command, "commands", None):
                stack.append(command)
            else:
                commands.append((name, command))
    assert {"compare", "scan", "show", "diff", "list", "verify", "probe", "github"} <= {n for n, _ in commands}
    handler = handles_errors(lambda: None).__code__
    for name, command in commands:
        codes, function = [], command.callback
        while function is not None:
            codes.append(function.__code__)
            function = getattr(function, "__wrapped__", None)
        assert handler in codes, name


def test_a_closed_standard_output_ends_quietly(tmp_path: Path) -> None:
    """`auditor kb list | head -1` after head is gone: no traceback, the SIGPIPE code, not 1."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "auditor", "kb", "list", "--format", "json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader went away before the report was written
    assert process.wait(timeout=120) == 141
    assert process.stderr.read() == b""


def test_ctrl_c_exits_130_quietly(tmp_path: Path) -> None:
    """Interrupted while it waits for a child (here an interpreter that never answers)."""
    started = tmp_path / "started"
    slow = tmp_path / "python"
    slow.write_text(f"#!/bin/sh\ntouch {started}\nexec sleep 60\n", "utf-8")
    slow.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "auditor", "probe", "--from", "2.5.0", "--to", "2.6.0",
                                "--no-cache", "--env-old", str(slow), "--env-new", str(slow)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err == b"" and out == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["kb", "list"], ["scan", PROJECT, "--from", "1.12.1", "--to", "1.13.0", "--no-cache"]])
def test_a_standard_output_that_takes_nothing_is_exit_2(tmp_path: Path, args: list[str]) -> None:
    """A full disk behind stdout is the place the user sent the report to, as with --output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "auditor", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr == "auditor: standard output: cannot write: No space left on device\n"
