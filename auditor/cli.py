"""The command line: options in, one call into the pipeline, rendered text out, an exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from enum import Enum
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from auditor import __version__, pipeline
from auditor.errors import AuditorError, ExitCode, UsageError
from auditor.knowledge import KnowledgeBase
from auditor.models import AuditResult, rank
from auditor.report import RENDERERS, kb as kb_report, lock as lock_report

app = typer.Typer(help="Audit a PyTorch dependency bump against your code.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)
lock_app = typer.Typer(help="Read and compare lock files.", no_args_is_help=True)
kb_app = typer.Typer(help="The knowledge base of spec changes.", no_args_is_help=True)
app.add_typer(lock_app, name="lock")
app.add_typer(kb_app, name="kb")

F = TypeVar("F", bound=Callable[..., Any])


class Format(str, Enum):
    text = "text"
    json = "json"


class FailOn(str, Enum):
    none = "none"
    low = "low"
    medium = "medium"
    high = "high"


FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOption = Annotated[Path | None, typer.Option("--output", "-o", help="Write the report to this file.")]
FailOnOption = Annotated[FailOn, typer.Option(help="Exit 1 when a finding is at or above this severity.")]
PythonOption = Annotated[
    str | None, typer.Option("--python-version", help="The project's Python, for changes that hold on some Pythons only.")
]


def handles_errors(command: F) -> F:
    """Map our error families to exit code 2 with a `path:line: message` line, no traceback."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except AuditorError as exc:
            typer.echo(f"auditor: {exc}", err=True)
            raise typer.Exit(ExitCode.ERROR) from None

    return wrapper  # type: ignore[return-value]


def emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, "utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write: {exc.strerror or exc}", output) from exc


def render(result: AuditResult, fmt: Format, output: Path | None) -> None:
    if fmt is Format.text:
        emit(RENDERERS["text"](result, color=output is None and sys.stdout.isatty()), output)
    else:
        emit(RENDERERS[fmt.value](result), output)


def exit_code(result: AuditResult, fail_on: FailOn) -> ExitCode:
    if fail_on is FailOn.none or rank(result.worst_severity()) < rank(fail_on.value):
        return ExitCode.OK
    return ExitCode.FINDINGS


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"auditor {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True)] = False,
) -> None:
    """Audit a PyTorch dependency bump against your code."""


@app.command()
@handles_errors
def compare(
    old: Annotated[Path, typer.Argument(help="The lock before the bump.")],
    new: Annotated[Path, typer.Argument(help="The lock after the bump.")],
    project: Annotated[Path | None, typer.Option(help="The project to scan for call sites.")] = None,
    old_format: Annotated[str | None, typer.Option(help="Read OLD as this lock format.")] = None,
    new_format: Annotated[str | None, typer.Option(help="Read NEW as this lock format.")] = None,
    python: PythonOption = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
    fail_on: FailOnOption = FailOn.low,
) -> None:
    """Read two locks, find the transitions the knowledge base knows, report affected call sites."""
    result = pipeline.compare(old, new, project, KnowledgeBase.load(), old_format, new_format, python)
    render(result, fmt, output)
    raise typer.Exit(exit_code(result, fail_on))


@app.command()
@handles_errors
def scan(
    path: Annotated[Path, typer.Argument(help="The project (or file) to scan.")],
    from_version: Annotated[str, typer.Option("--from", help="The version before the bump.")],
    to_version: Annotated[str, typer.Option("--to", help="The version after the bump.")],
    package: Annotated[str, typer.Option(help="The package that moves.")] = "torch",
    python: PythonOption = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
    fail_on: FailOnOption = FailOn.low,
) -> None:
    """The same as compare, with the transition given instead of two locks."""
    result = pipeline.scan(path, from_version, to_version, KnowledgeBase.load(), package, python)
    render(result, fmt, output)
    raise typer.Exit(exit_code(result, fail_on))


@lock_app.command("show")
@handles_errors
def lock_show(
    file: Annotated[Path, typer.Argument(help="A lock file.")],
    format_in: Annotated[str | None, typer.Option(help="Read FILE as this lock format.")] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """The parsed pins of one lock."""
    from auditor.lockfiles import read_lock

    emit(lock_report.show(read_lock(file, format_in), fmt.value), output)


@lock_app.command("diff")
@handles_errors
def lock_diff(
    old: Annotated[Path, typer.Argument(help="The lock before.")],
    new: Annotated[Path, typer.Argument(help="The lock after.")],
    old_format: Annotated[str | None, typer.Option(help="Read OLD as this lock format.")] = None,
    new_format: Annotated[str | None, typer.Option(help="Read NEW as this lock format.")] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Every package change between two locks, torch family first."""
    from auditor.lockfiles import diff_locks, read_lock

    diff = diff_locks(read_lock(old, old_format), read_lock(new, new_format))
    emit(lock_report.diff(diff, fmt.value), output)


@kb_app.command("list")
@handles_errors
def kb_list(
    package: Annotated[str | None, typer.Option(help="Only this package's entries.")] = None,
    from_version: Annotated[str | None, typer.Option("--from", help="With --to: the entries this transition crosses.")] = None,
    to_version: Annotated[str | None, typer.Option("--to")] = None,
    kind: Annotated[str | None, typer.Option(help="Only entries of this kind.")] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Knowledge entries, optionally those a transition crosses."""
    kb = KnowledgeBase.load()
    entries = kb.entries
    if (from_version is None) != (to_version is None):
        raise UsageError("--from and --to go together")
    if from_version is not None and to_version is not None:
        entries = pipeline.scan_changes(kb, package or "torch", from_version, to_version)
    elif package is not None:
        entries = kb.for_package(pipeline.package_name(package))
    if kind is not None:
        entries = tuple(e for e in entries if e.kind == kind)
    emit(kb_report.listing(entries, fmt.value), output)


@kb_app.command("show")
@handles_errors
def kb_show(
    change_id: Annotated[str, typer.Argument(metavar="ID", help="The entry's id.")],
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """One entry with its docs."""
    emit(kb_report.show(KnowledgeBase.load().get(change_id), fmt.value), output)


@kb_app.command("verify")
@handles_errors
def kb_verify(
    python: Annotated[str | None, typer.Option("--python", help="Run the probes in this interpreter.")] = None,
    package: Annotated[str | None, typer.Option(help="Only this package's entries.")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds the whole batch may take.")] = 600,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Run every probe against the installed packages and check what each entry claims."""
    from auditor.probe import verify

    kb = KnowledgeBase.load()
    entries = kb.for_package(pipeline.package_name(package)) if package else kb.entries
    verification = verify(entries, python, timeout)
    emit(kb_report.verification(verification, fmt.value), output)
    raise typer.Exit(ExitCode.FINDINGS if verification.failed else ExitCode.OK)


def main() -> None:
    app(prog_name="auditor")
