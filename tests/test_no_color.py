"""NO_COLOR on a real terminal: a pty, the real `python -m auditor`, every ESC byte counted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "examples" / "project"

COMMANDS = {
    "help": ["--help"],
    "command-help": ["scan", "--help"],
    "report": ["scan", str(PROJECT), "--from", "1.12.1", "--to", "1.13.0", "--no-cache"],
    "usage-error": ["scan"],
}


def on_a_terminal(args: list[str], **env: str) -> tuple[int, bytes]:
    """Run the CLI with stdin, stdout and stderr on one pty, as in a person's terminal."""
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS")}
    environment = {**base, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "100", **env}
    controller, terminal = os.openpty()
    process = subprocess.Popen([sys.executable, "-m", "auditor", *args], stdin=terminal, stdout=terminal,
                               stderr=terminal, env=environment, close_fds=True)
    os.close(terminal)
    output = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the other side is closed
            break
        if not chunk:
            break
        output += chunk
    os.close(controller)
    return process.wait(timeout=120), output


@pytest.mark.parametrize("name", COMMANDS)
def test_no_color_leaves_no_escape_byte(name: str) -> None:
    # any non-empty value is one path (`progress.wants_color`): one value is run, not several
    code, output = on_a_terminal(COMMANDS[name], NO_COLOR="true")
    assert code in (0, 1, 2)
    assert output.strip(), "the command printed nothing"
    assert b"\x1b" not in output, output[:400]


@pytest.mark.parametrize("name", ["help", "command-help", "report"])
def test_without_no_color_the_terminal_gets_colour(name: str) -> None:
    """The same commands colour without NO_COLOR: the test above can fail."""
    code, output = on_a_terminal(COMMANDS[name])
    assert code in (0, 1)
    assert b"\x1b[" in output


def test_an_empty_no_color_is_not_set() -> None:
    code, output = on_a_terminal(COMMANDS["report"], NO_COLOR="")
    assert code == 1 and b"\x1b[" in output
