"""The lock commands: show and diff."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from auditor.cli.common import (
    Command,
    FailOn,
    FailOnOption,
    Format,
    FormatOption,
    LockFormatHelp,
    OutputOption,
    PlatformOption,
    PythonOption,
    ResolveFlag,
    handles_errors,
    lock_app,
)
from auditor.cli.output import emit, not_an_input, warn
from auditor.errors import ExitCode
from auditor.models import rank
from auditor.report import lock as lock_report
from auditor.settings import knowledge


@lock_app.command("show", cls=Command)
@handles_errors
def lock_show(
    file: Annotated[Path, typer.Argument(help="A lock file.")],
    format_in: Annotated[
        str | None, typer.Option(help=f"Read FILE as this lock format. {LockFormatHelp}.")
    ] = None,
    resolve: ResolveFlag = False,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """The parsed pins of one lock."""
    from auditor.lockfiles import read_lock

    not_an_input(output, file)
    emit(lock_report.show(read_lock(file, format_in, resolve), fmt.value), output)


@lock_app.command("diff", cls=Command)
@handles_errors
def lock_diff(
    old: Annotated[Path, typer.Argument(help="The lock before.")],
    new: Annotated[Path, typer.Argument(help="The lock after.")],
    old_format: Annotated[str | None, typer.Option(help="Read OLD as this lock format.")] = None,
    new_format: Annotated[str | None, typer.Option(help="Read NEW as this lock format.")] = None,
    python: PythonOption = None,
    platform: PlatformOption = None,
    resolve: ResolveFlag = False,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
    fail_on: FailOnOption = FailOn.low,
) -> None:
    """Every package change between two locks, torch family first, compatibility problems flagged."""
    from auditor.lockfiles import Selection, diff_locks, read_lock

    not_an_input(output, old, new)
    kb = knowledge()
    warn(kb.notes)
    old_lock, new_lock = read_lock(old, old_format, resolve), read_lock(new, new_format, resolve)
    diff = diff_locks(old_lock, new_lock, Selection(python, platform), kb.entries)
    emit(lock_report.diff(diff, fmt.value, frozenset(kb.packages()), old_lock, new_lock), output)
    worst = max((rank(e.severity) for e in diff.environment), default=0)
    failed = fail_on is not FailOn.none and worst >= rank(fail_on.value)
    raise typer.Exit(ExitCode.FINDINGS if failed else ExitCode.OK)
