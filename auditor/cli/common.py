"""What every command shares: the application, option types declared once, error handling and the exit code."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import traceback
from collections.abc import Callable
from enum import Enum
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from auditor import __version__
from auditor.errors import AuditorError, ExitCode
from auditor.lockfiles.detect import format_names
from auditor.models import AuditResult, Gate


class Command(typer.core.TyperCommand):
    """typer's rich help prints `<bool>` beside every flag (`--help <bool>`); its plain help does
    not, and neither do we: a flag takes no value to show."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_type(super().get_params(ctx))


class Group(typer.core.TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_type(super().get_params(ctx))


def _flags_without_type(params: list[Any]) -> list[Any]:
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


app = typer.Typer(
    cls=Group,
    help="Audit a PyTorch dependency bump against your code.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
lock_app = typer.Typer(cls=Group, help="Read and compare lock files.", no_args_is_help=True)
kb_app = typer.Typer(cls=Group, help="The knowledge base of spec changes.", no_args_is_help=True)
app.add_typer(lock_app, name="lock")
app.add_typer(kb_app, name="kb")

F = TypeVar("F", bound=Callable[..., Any])
# the global options of this run, set by main_options before every command; `terminated`: a
# SIGTERM arrived (an error raised while the run unwinds from it is the stop, not a crash)
RUN = {"debug": False, "terminated": False}


class Format(str, Enum):
    text = "text"
    json = "json"


class ReportFormat(str, Enum):
    """What compare and scan can write; the other commands write text or json."""

    text = "text"
    json = "json"
    markdown = "markdown"
    sarif = "sarif"
    github = "github"


class FailOn(str, Enum):
    none = "none"
    low = "low"
    medium = "medium"
    high = "high"


FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
ReportFormatOption = Annotated[ReportFormat, typer.Option("--format", "-f", help="Output format.")]
OutputOption = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write the report to this file.")
]
FailOnOption = Annotated[
    FailOn, typer.Option(help="Exit 1 when a finding is at or above this severity.")
]


class Confidence(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"


ConfidenceHelp = "Only findings at or above this confidence count for --fail-on (low-confidence ones do not by default)."
FailOnConfidenceOption = Annotated[Confidence, typer.Option(help=ConfidenceHelp)]
WarningsHelp = (
    "Also count findings whose only consequence is a new warning (listed apart otherwise)."
)
FailOnWarningsFlag = Annotated[bool, typer.Option("--fail-on-warnings", help=WarningsHelp)]
FailOnVendoredFlag = Annotated[
    bool,
    typer.Option(
        "--fail-on-vendored",
        help="Also count findings in vendored folders (third_party/, vendor/, ...; `vendored` in the settings).",
    ),
]


def python_version(value: str | None) -> str | None:
    """--python-version is X.Y or X.Y.Z: anything else would quietly match no entry's Pythons."""
    if value and not re.fullmatch(r"\d+\.\d+(\.\d+)?", value.strip()):
        raise typer.BadParameter(f"{value!r} is not a Python version such as 3.11")
    return value.strip() if value else value


PythonOption = Annotated[
    str | None,
    typer.Option(
        "--python-version",
        callback=python_version,
        help="The project's Python, for changes that hold on some Pythons only.",
    ),
]


PlatformOption = Annotated[
    str | None,
    typer.Option(
        help="Only this platform's pins of locks that pin several (linux, darwin, win32, linux-64, osx-arm64, ...)."
    ),
]
ResolveFlag = Annotated[
    bool,
    typer.Option(
        "--resolve",
        help="Resolve unpinned inputs (requirements.in, ranges) to pins with pip-compile.",
    ),
]
LockFormatHelp = "Lock formats: " + ", ".join(format_names())


ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Scan settings (default: \\[tool.auditor] in the project's pyproject.toml).",
    ),
]


ProbeFlag = Annotated[
    bool, typer.Option("--probe", help="Run each crossed change's probe on both versions.")
]
HarvestedHelp = (
    "Also report the changes generated from the shipped harvest (the package's own released "
    "source, not probe-verified), at low confidence."
)
HarvestedFlag = Annotated[bool, typer.Option("--harvested", help=HarvestedHelp)]
HarvestHelp = (
    "Harvest the releases a transition reaches past the shipped harvest from their wheels (read, never "
    "installed) and report their candidates as generated changes, at low confidence."
)
HarvestFlag = Annotated[bool, typer.Option("--harvest", help=HarvestHelp)]
IndexUrlHelp = "The simple index --harvest reads wheels from (default: PyPI's)."
IndexUrlOption = Annotated[
    str | None, typer.Option("--index-url", envvar="AUDITOR_INDEX_URL", help=IndexUrlHelp)
]
CacheDirOption = Annotated[
    Path | None,
    typer.Option(
        help="Where scan results, probe environments and probe results are kept (default: the user cache)."
    ),
]
NoCacheOption = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Scan every file again and probe in temporary environments; store nothing.",
    ),
]
ProbeCacheDirOption = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        help="Where probe environments and probe results are kept (default: the user cache).",
    ),
]
ProbeNoCacheOption = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Build the environments in a temporary folder and run every probe again; store nothing.",
    ),
]


def handles_errors(command: F) -> F:
    """Map our error families to exit code 2 with a `path:line: message` line, no traceback;
    anything else is the tool's own failure: exit 3, one line, the traceback with --debug."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except AuditorError as exc:
            typer.echo(f"auditor: {exc}", err=True)
            raise typer.Exit(ExitCode.ERROR) from None
        except BrokenPipeError:
            _quiet_stdout()
            raise typer.Exit(ExitCode.BROKEN_PIPE) from None
        except Exception as exc:  # noqa: BLE001 - the one place that turns every other failure into exit 3
            if RUN["terminated"]:  # the pool or a cleanup failing as the stop unwinds it
                raise typer.Exit(ExitCode.TERMINATED) from None
            typer.echo(crash_line(exc, command.__name__), err=True)
            if RUN["debug"]:
                traceback.print_exc(file=sys.stderr)
            raise typer.Exit(ExitCode.CRASH) from None

    return wrapper  # type: ignore[return-value]


def crash_line(exc: BaseException, function: str) -> str:
    """One line naming the command that failed and how (no traceback, which --debug adds)."""
    what = function.removesuffix("_command").replace("_", " ")
    detail = " ".join(str(exc).split())
    hint = "" if RUN["debug"] else "; --debug shows the traceback"
    return f"auditor: {what} failed unexpectedly: {type(exc).__name__}{': ' + detail if detail else ''}{hint}"


def _quiet_stdout() -> None:
    """Standard output is closed on the other end: point it at devnull, so that the flush at
    exit raises nothing more."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def gate(
    fail_on: FailOn, confidence: Confidence, warnings: bool = False, vendored: bool = False
) -> Gate:
    """What counts for the exit code under the command's options."""
    return Gate(
        None if fail_on is FailOn.none else fail_on.value, confidence.value, warnings, vendored
    )


def exit_code(result: AuditResult) -> ExitCode:
    """Findings count by the result's gate (severity, confidence, consequence, vendored);
    compatibility problems by severity alone; good news never."""
    return ExitCode.FINDINGS if result.fails() else ExitCode.OK


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"auditor {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=version_callback, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", envvar="AUDITOR_DEBUG", help="On an unexpected error, show the traceback."
        ),
    ] = False,
) -> None:
    """Audit a PyTorch dependency bump against your code."""
    RUN["debug"] = debug
