"""Where a command's text goes: standard output or the --output file, and its warnings on stderr."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import typer

from auditor.cli.common import ReportFormat
from auditor.errors import UsageError
from auditor.pipeline import Audited
from auditor.progress import wants_color
from auditor.report import WRITERS
from auditor.requests import Fixes
from auditor.settings import actions_links, repository_prefix


def warn(notes: tuple[str, ...]) -> None:
    """What a command without a report could not do as usual (a kept knowledge base it could
    not use, a transition past the knowledge base's horizon), once each, on stderr."""
    for note in notes:
        typer.echo(f"auditor: warning: {note}", err=True)


def not_an_input(output: Path | None, *inputs: Path | None) -> None:
    """--output never names a file the command reads: the report would overwrite it."""
    for given in inputs:
        if output is None or given is None:
            continue
        try:
            same = output.samefile(given)
        except OSError:  # one of them does not exist (yet)
            same = os.path.abspath(output) == os.path.abspath(given)
        if same:
            raise UsageError(
                f"--output names an input of this command ({given}): write the report elsewhere"
            )


def emit(text: str, output: Path | None) -> None:
    with destination(output) as out:
        out.write(text)


@contextmanager
def destination(output: Path | None) -> Iterator[TextIO]:
    """Standard output, or the --output file, written as the report is made."""
    if output is None:
        if sys.stdout is None:  # started with stdout closed (`>&-`)
            raise UsageError("standard output is closed: give --output FILE")
        try:
            yield sys.stdout
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:  # a full disk, a device that takes nothing
            raise UsageError(f"standard output: cannot write: {exc.strerror or exc}") from exc
        return
    try:
        with output.open("w", encoding="utf-8") as handle:
            yield handle
    except OSError as exc:  # opening, writing or closing
        raise UsageError(f"cannot write: {exc.strerror or exc}", output) from exc


def report_fixes(
    fmt: ReportFormat, project: Path | None, locks: tuple[Path, Path] | None = None
) -> Fixes | None:
    """The rewrites a report format carries, for the pipeline to make: SARIF's `fixes`, Markdown's
    suggested diffs; none without a project folder. `locks`: the lockfiles compared, for the
    `auditor fix` command a suggestion shows."""
    if project is None or not project.is_dir():
        return None
    if fmt is ReportFormat.sarif:
        return Fixes(project, rewrite=True)
    if fmt is ReportFormat.markdown:
        return Fixes(project, suggest=True, shown=str(project), locks=shown(locks))
    return None


def shown(locks: tuple[Path, Path] | None) -> tuple[str, str] | None:
    return (str(locks[0]), str(locks[1])) if locks is not None else None


def render(
    audited: Audited,
    fmt: ReportFormat,
    output: Path | None,
    project: Path | None = None,
    locks: tuple[Path, Path] | None = None,
) -> None:
    """The report of a finished audit; `locks`: the two lockfiles compared, for the `auditor fix`
    command the text report suggests."""
    result = audited.result
    options: dict[str, Any] = {}
    if fmt is ReportFormat.text:
        options["color"] = output is None and sys.stdout.isatty() and wants_color()
        if result.findings and (project is None or project.is_dir()):
            from auditor.suggestion import fix_command

            options["fix_command"] = fix_command(  # `compare --git` scans the repository: "."
                result, str(project or "."), "keep-old", shown(locks), action="--diff"
            )
    elif fmt in (ReportFormat.sarif, ReportFormat.github):
        options["prefix"] = repository_prefix(project)
    elif fmt is ReportFormat.markdown:
        options["links"] = actions_links(project)
    if fmt is ReportFormat.sarif:
        options["fixes"] = audited.fixes
    elif fmt is ReportFormat.markdown:
        options["suggested"] = audited.suggested
    with destination(output) as out:
        WRITERS[fmt.value](result, out, **options)
