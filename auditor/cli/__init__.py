"""The command line: options in, one call into the pipeline, rendered text out, an exit code.

One module per command group; importing them registers their commands on `app`."""

from __future__ import annotations

import signal

from auditor.cli import audit, fix, github, kb, kbfolder, lock, probe
from auditor.cli.common import RUN, app, handles_errors
from auditor.cli.provision import PROBE_OPTIONS
from auditor.errors import ExitCode
from auditor.progress import wants_color
from auditor.settings import knowledge

__all__ = ["PROBE_OPTIONS", "app", "handles_errors", "knowledge", "main"]
_COMMANDS = (audit, fix, lock, kb, kbfolder, github, probe)  # registered on import, in this order


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM ends the run as Ctrl-C does, quietly, once the cleanups have run (a scan's worker
    processes stopped, the cache closed), with the code of a process the signal ended."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one ends it at once
    RUN["terminated"] = True
    raise SystemExit(ExitCode.TERMINATED)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminated)
    if not wants_color():
        from typer import rich_utils

        rich_utils.COLOR_SYSTEM = None  # typer's help and usage errors: no ANSI style at all
    app(prog_name="auditor")
