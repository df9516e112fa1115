"""The command line: options in, one call into the pipeline, rendered text out, an exit code."""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from enum import Enum
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO, TypeVar

import typer

from auditor import __version__, pipeline
from auditor.errors import AuditorError, ExitCode, UsageError
from auditor.knowledge.base import UNLISTED
from auditor.lockfiles.detect import format_names
from auditor.models import AuditResult, Gate, rank
from auditor.progress import wants_color
from auditor.report import WRITERS
from auditor.report import kb as kb_report
from auditor.report import lock as lock_report
from auditor.report.summary import tally
from auditor.settings import (
    actions_links,
    knowledge,
    probe_settings,
    progress_reporter,
    repository_prefix,
    run_probes,
    scan_options,
)

if TYPE_CHECKING:
    from auditor.dependencies.stage import DependencySettings


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


app = typer.Typer(cls=Group, help="Audit a PyTorch dependency bump against your code.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)
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
OutputOption = Annotated[Path | None, typer.Option("--output", "-o", help="Write the report to this file.")]
FailOnOption = Annotated[FailOn, typer.Option(help="Exit 1 when a finding is at or above this severity.")]


class Confidence(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"


ConfidenceHelp = "Only findings at or above this confidence count for --fail-on (low-confidence ones do not by default)."
FailOnConfidenceOption = Annotated[Confidence, typer.Option(help=ConfidenceHelp)]
WarningsHelp = "Also count findings whose only consequence is a new warning (listed apart otherwise)."
FailOnWarningsFlag = Annotated[bool, typer.Option("--fail-on-warnings", help=WarningsHelp)]
FailOnVendoredFlag = Annotated[bool, typer.Option(
    "--fail-on-vendored", help="Also count findings in vendored folders (third_party/, vendor/, ...; `vendored` in the settings).")]
NoDependenciesFlag = Annotated[bool, typer.Option(
    "--no-dependencies", envvar="AUDITOR_NO_DEPENDENCIES",
    help="Do not read the new lock's dependencies from the package index (their requirements on torch, "
         "and the calls to torch in those that depend on it).")]
SitePackagesOption = Annotated[Path | None, typer.Option(
    "--site-packages", metavar="DIR",
    help="An environment's site-packages to read git and local dependencies from (the index has none of them).")]


def dependency_settings(no_dependencies: bool, site_packages: Path | None, index_url: str | None,
                        cache_dir: Path | None, no_cache: bool) -> DependencySettings:
    """How the new lock's dependencies are read (docs/dependencies.md)."""
    from auditor.cachefiles import default_cache_dir
    from auditor.dependencies.stage import DependencySettings

    return DependencySettings(
        enabled=not no_dependencies, index_url=index_url, site_packages=site_packages,
        cache=None if no_cache else (cache_dir or default_cache_dir()),
    )


def python_version(value: str | None) -> str | None:
    """--python-version is X.Y or X.Y.Z: anything else would quietly match no entry's Pythons."""
    if value and not re.fullmatch(r"\d+\.\d+(\.\d+)?", value.strip()):
        raise typer.BadParameter(f"{value!r} is not a Python version such as 3.11")
    return value.strip() if value else value


PythonOption = Annotated[
    str | None, typer.Option("--python-version", callback=python_version,
                             help="The project's Python, for changes that hold on some Pythons only.")
]


PlatformOption = Annotated[
    str | None,
    typer.Option(help="Only this platform's pins of locks that pin several (linux, darwin, win32, linux-64, osx-arm64, ...)."),
]
ResolveFlag = Annotated[
    bool, typer.Option("--resolve", help="Resolve unpinned inputs (requirements.in, ranges) to pins with pip-compile."),
]
LockFormatHelp = "Lock formats: " + ", ".join(format_names())


ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="Scan settings (default: \\[tool.auditor] in the project's pyproject.toml)."),
]


ProbeFlag = Annotated[bool, typer.Option("--probe", help="Run each crossed change's probe on both versions.")]
HarvestedHelp = ("Also report the changes generated from the shipped harvest (the package's own released "
                 "source, not probe-verified), at low confidence.")
HarvestedFlag = Annotated[bool, typer.Option("--harvested", help=HarvestedHelp)]
HarvestHelp = ("Harvest the releases a transition reaches past the shipped harvest from their wheels (read, never "
               "installed) and report their candidates as generated changes, at low confidence.")
HarvestFlag = Annotated[bool, typer.Option("--harvest", help=HarvestHelp)]
IndexUrlHelp = "The simple index --harvest reads wheels from (default: PyPI's)."
IndexUrlOption = Annotated[str | None, typer.Option("--index-url", envvar="AUDITOR_INDEX_URL", help=IndexUrlHelp)]
CacheDirOption = Annotated[
    Path | None,
    typer.Option(help="Where scan results, probe environments and probe results are kept (default: the user cache)."),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Scan every file again and probe in temporary environments; store nothing."),
]
ProbeCacheDirOption = Annotated[
    Path | None, typer.Option("--cache-dir", help="Where probe environments and probe results are kept (default: the user cache)."),
]
ProbeNoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Build the environments in a temporary folder and run every probe again; store nothing."),
]


class Installer(str, Enum):
    auto = "auto"
    uv = "uv"
    pip = "pip"


# How probe environments are provisioned and probes run: declared once, on `probe` and on
# `compare --probe` / `scan --probe` alike (name: annotation with the option, default).
PROBE_OPTIONS: dict[str, tuple[Any, Any]] = {
    "python_old": (Annotated[str | None, typer.Option(
        help="Interpreter (path or version such as 3.10) for the old side.", rich_help_panel="Probes")], None),
    "python_new": (Annotated[str | None, typer.Option(
        help="Interpreter (path or version) for the new side.", rich_help_panel="Probes")], None),
    "env_old": (Annotated[str | None, typer.Option(
        help="Use this existing environment (directory or interpreter) for the old side.", rich_help_panel="Probes")], None),
    "env_new": (Annotated[str | None, typer.Option(
        help="Use this existing environment for the new side.", rich_help_panel="Probes")], None),
    "index_url": (Annotated[str | None, typer.Option(
        help="Package index to use instead of pip's configured one (--harvest reads wheels from it too).",
        rich_help_panel="Probes")], None),
    "extra_index_url": (Annotated[list[str] | None, typer.Option(
        help="Another package index (repeatable).", rich_help_panel="Probes")], None),
    "find_links": (Annotated[list[str] | None, typer.Option(
        help="A folder or page of wheels (repeatable).", rich_help_panel="Probes")], None),
    "torch_index": (Annotated[str | None, typer.Option(
        help="Index of CPU torch builds consulted first ('' for none; default https://download.pytorch.org/whl/cpu).",
        rich_help_panel="Probes")], None),
    "offline": (Annotated[bool, typer.Option(
        help="Install only from caches and find-links folders.", rich_help_panel="Probes")], False),
    "no_pip_config": (Annotated[bool, typer.Option(
        "--no-pip-config", help="Ignore pip's configuration.", rich_help_panel="Probes")], False),
    "allow_cuda": (Annotated[bool, typer.Option(
        help="Accept CUDA builds of torch (nvidia-* wheels, several GB).", rich_help_panel="Probes")], False),
    "installer": (Annotated[Installer, typer.Option(
        help="What builds the environments.", rich_help_panel="Probes")], Installer.auto),
    "timeout": (Annotated[float, typer.Option(
        min=0.1, help="Seconds a batch of probes may take.", rich_help_panel="Probes")], 900),
    "probe_timeout": (Annotated[float, typer.Option(
        min=0.1, help="Seconds one probe may take.", rich_help_panel="Probes")], 120),
    "memory_limit": (Annotated[float | None, typer.Option(
        min=0, show_default=False, rich_help_panel="Probes",
        help="MiB of address space a probe interpreter may use (0: no limit). Default: 4096, and 8192 for "
             "a CUDA build of torch, whose import maps about 4.7 GiB.")], None),
}
Provision = dict[str, Any]


def probe_options(command: F) -> F:
    """Adds PROBE_OPTIONS to `command`'s options; the command gets their values as one
    `provision` dict (its own `provision` parameter is not an option)."""
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "provision"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
             for name, (annotation, default) in PROBE_OPTIONS.items()]

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        provision = {name: kwargs.pop(name, default) for name, (_, default) in PROBE_OPTIONS.items()}
        return command(*args, provision=provision, **kwargs)

    parameters = [*kept, *added]
    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    return wrapper  # type: ignore[return-value]


def probe_settings_for(provision: Provision, cache_dir: Path | None, no_cache: bool, probe: bool = True,
                       harvest: bool = False, dependencies: bool = False) -> Any:
    """The probe settings the options ask for; without --probe, a provisioning option given is a
    mistake to say, not to ignore (but --index-url, which --harvest and the dependency audit read too)."""
    if not probe:
        given = [name for name, (_, default) in PROBE_OPTIONS.items() if provision.get(name, default) != default
                 and not ((harvest or dependencies) and name == "index_url")]
        if given:
            names = ", ".join("--" + name.replace("_", "-") for name in given)
            also = " or --harvest" if given == ["index_url"] else ""
            raise UsageError(f"{names}: only used with --probe{also}")
        return None
    values = dict(provision)
    values["installer"] = Installer(values["installer"]).value
    return probe_settings(cache_dir=cache_dir, no_cache=no_cache, **values)


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
            raise UsageError(f"--output names an input of this command ({given}): write the report elsewhere")


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


def render(
    result: AuditResult, fmt: ReportFormat, output: Path | None, project: Path | None = None,
    locks: tuple[Path, Path] | None = None,
) -> None:
    """`locks`: the two lockfiles compared, for the `auditor fix` command a suggested fix shows."""
    options: dict[str, Any] = {}
    shown = (str(locks[0]), str(locks[1])) if locks is not None else None
    if fmt is ReportFormat.text:
        options["color"] = output is None and sys.stdout.isatty() and wants_color()
        if project is not None and project.is_dir() and result.findings:
            from auditor.report.suggest import fix_command

            options["fix_command"] = fix_command(result, str(project), "keep-old", shown, action="--diff")
    elif fmt in (ReportFormat.sarif, ReportFormat.github):
        options["prefix"] = repository_prefix(project)
    elif fmt is ReportFormat.markdown:
        options["links"] = actions_links(project)
    if project is not None and project.is_dir() and result.findings:  # the fix engine, for SARIF and Markdown only
        if fmt is ReportFormat.sarif:
            from auditor.fix import fix_project

            options["fixes"] = fix_project(result, project, "keep-old")
        elif fmt is ReportFormat.markdown:
            from auditor.report.suggest import fix_command, suggestions

            options["suggested"] = suggestions(result, project, "keep-old",
                                               command=fix_command(result, str(project), "keep-old", shown))
    with destination(output) as out:
        WRITERS[fmt.value](result, out, **options)


def gate(fail_on: FailOn, confidence: Confidence, warnings: bool = False, vendored: bool = False) -> Gate:
    """What counts for the exit code under the command's options."""
    return Gate(None if fail_on is FailOn.none else fail_on.value, confidence.value, warnings, vendored)


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
    version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True,
                                          help="Show the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", envvar="AUDITOR_DEBUG",
                                        help="On an unexpected error, show the traceback.")] = False,
) -> None:
    """Audit a PyTorch dependency bump against your code."""
    RUN["debug"] = debug


@app.command(cls=Command)
@handles_errors
@probe_options
def compare(
    old: Annotated[Path | None, typer.Argument(help="The lock before the bump.")] = None,
    new: Annotated[Path | None, typer.Argument(help="The lock after the bump.")] = None,
    project: Annotated[Path | None, typer.Option(help="The project to scan for call sites.")] = None,
    old_format: Annotated[str | None, typer.Option(help="Read OLD as this lock format.")] = None,
    new_format: Annotated[str | None, typer.Option(help="Read NEW as this lock format.")] = None,
    python: PythonOption = None,
    platform: PlatformOption = None,
    resolve: ResolveFlag = False,
    git_range: Annotated[str | None, typer.Option(
        "--git", metavar="BASE..HEAD",
        help="Instead of OLD and NEW: every lockfile changed between two commits (BASE.. : the working tree).",
    )] = None,
    lockfiles: Annotated[str | None, typer.Option(
        help="With --git: lockfile globs to read, comma or newline separated (default: detect by name, folder and content).",
    )] = None,
    fmt: ReportFormatOption = ReportFormat.text,
    output: OutputOption = None,
    fail_on: FailOnOption = FailOn.low,
    fail_on_confidence: FailOnConfidenceOption = Confidence.medium,
    fail_on_warnings: FailOnWarningsFlag = False,
    fail_on_vendored: FailOnVendoredFlag = False,
    config: ConfigOption = None,
    probe: ProbeFlag = False,
    harvested: HarvestedFlag = False,
    harvest: HarvestFlag = False,
    cache_dir: CacheDirOption = None,
    no_cache: NoCacheOption = False,
    no_dependencies: NoDependenciesFlag = False,
    site_packages: SitePackagesOption = None,
    provision: Provision | None = None,
) -> None:
    """Read two locks, find the transitions the knowledge base knows, report affected call sites."""
    not_an_input(output, old, new, config)
    settings = probe_settings_for(provision or {}, cache_dir, no_cache, probe, harvest, not no_dependencies)
    dependencies = dependency_settings(no_dependencies, site_packages, (provision or {}).get("index_url"),
                                       cache_dir, no_cache)
    options = scan_options(cache_dir, no_cache, fmt in (ReportFormat.text, ReportFormat.markdown))
    kb = knowledge(cache_dir, no_cache, harvested, harvest, (provision or {}).get("index_url"))
    if lockfiles is not None and git_range is None:
        raise UsageError("--lockfiles: only used with --git")
    if git_range is not None:
        if old is not None or new is not None:
            raise UsageError("--git replaces OLD and NEW: give one or the other")
        from auditor.github.action import split_patterns
        from auditor.gitrange import parse_range, root

        base, head = parse_range(git_range)
        repo = root(project if project is not None and project.is_dir() else Path.cwd())
        # a repository is given: scan it unless --project names a part of it
        result, _ = pipeline.compare_range(
            repo, base, head, project or repo, kb, patterns=split_patterns(lockfiles), old_format=old_format,
            new_format=new_format, python=python, platform=platform, resolve=resolve, config=config,
            scan_options=options,
            probe=(lambda found, scanned: run_probes(found, settings, scanned)) if settings is not None else None,
            dependencies=dependencies,
        )
    elif old is None or new is None:
        raise UsageError("compare needs OLD and NEW, or --git BASE..HEAD")
    else:
        result = pipeline.compare(
            old, new, project, kb, old_format, new_format, python, config=config,
            platform=platform, resolve=resolve, scan_options=options, dependencies=dependencies,
        )
        if settings is not None:
            result = run_probes(result, settings, project)
    result = replace(result, gate=gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored))
    render(result, fmt, output, project, (old, new) if old is not None and new is not None else None)
    raise typer.Exit(exit_code(result))


@app.command(cls=Command)
@handles_errors
@probe_options
def scan(
    path: Annotated[Path, typer.Argument(help="The project (or file) to scan.")],
    from_version: Annotated[str, typer.Option("--from", help="The version before the bump.")],
    to_version: Annotated[str, typer.Option("--to", help="The version after the bump.")],
    package: Annotated[str, typer.Option(help="The package that moves.")] = "torch",
    python: PythonOption = None,
    fmt: ReportFormatOption = ReportFormat.text,
    output: OutputOption = None,
    fail_on: FailOnOption = FailOn.low,
    fail_on_confidence: FailOnConfidenceOption = Confidence.medium,
    fail_on_warnings: FailOnWarningsFlag = False,
    fail_on_vendored: FailOnVendoredFlag = False,
    config: ConfigOption = None,
    probe: ProbeFlag = False,
    harvested: HarvestedFlag = False,
    harvest: HarvestFlag = False,
    cache_dir: CacheDirOption = None,
    no_cache: NoCacheOption = False,
    provision: Provision | None = None,
) -> None:
    """The same as compare, with the transition given instead of two locks."""
    not_an_input(output, path, config)
    settings = probe_settings_for(provision or {}, cache_dir, no_cache, probe, harvest)
    kb = knowledge(cache_dir, no_cache, harvested, harvest, (provision or {}).get("index_url"))
    result = pipeline.scan(
        path, from_version, to_version, kb, package, python, config=config,
        scan_options=scan_options(cache_dir, no_cache, fmt in (ReportFormat.text, ReportFormat.markdown)),
    )
    if settings is not None:
        result = run_probes(result, settings, path)
    result = replace(result, gate=gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored))
    render(result, fmt, output, path if path.is_dir() else None)
    raise typer.Exit(exit_code(result))


@app.command("fix", cls=Command)
@handles_errors
@probe_options
def fix_command(
    first: Annotated[Path | None, typer.Argument(
        metavar="OLD|DIR", help="The lock before the bump; with --from/--to, the project.")] = None,
    second: Annotated[Path | None, typer.Argument(metavar="NEW", help="The lock after the bump.")] = None,
    project: Annotated[Path | None, typer.Option(help="The project whose call sites are rewritten.")] = None,
    keep_old: Annotated[bool, typer.Option("--keep-old", help="Rewrite so the code behaves on the new version as on the old one.")] = False,
    adopt_new: Annotated[bool, typer.Option("--adopt-new", help="Rewrite to the new behaviour, the same on both versions.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the rewrite as a unified diff (the default).")] = False,
    write: Annotated[bool, typer.Option("--write", help="Write the rewritten files: all or none, every byte outside the rewritten lines kept.")] = False,
    force: Annotated[bool, typer.Option("--force", help="--write even where git shows uncommitted changes.")] = False,
    min_confidence: Annotated[Confidence, typer.Option(help="Rewrite only findings at or above this confidence.")] = Confidence.high,
    from_version: Annotated[str | None, typer.Option("--from", help="Instead of OLD and NEW: the version before the bump.")] = None,
    to_version: Annotated[str | None, typer.Option("--to", help="With --from: the version after the bump.")] = None,
    package: Annotated[str, typer.Option(help="With --from/--to: the package that moves.")] = "torch",
    old_format: Annotated[str | None, typer.Option(help="Read OLD as this lock format.")] = None,
    new_format: Annotated[str | None, typer.Option(help="Read NEW as this lock format.")] = None,
    python: PythonOption = None,
    platform: PlatformOption = None,
    resolve: ResolveFlag = False,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
    fail_on: FailOnOption = FailOn.low,
    fail_on_confidence: FailOnConfidenceOption = Confidence.medium,
    fail_on_warnings: FailOnWarningsFlag = False,
    fail_on_vendored: FailOnVendoredFlag = False,
    config: ConfigOption = None,
    probe: Annotated[bool, typer.Option(
        "--probe", help="Run each rewritten literal-only site and the original on both versions: the proof.")] = False,
    cache_dir: CacheDirOption = None,
    no_cache: NoCacheOption = False,
    provision: Provision | None = None,
) -> None:
    """Rewrite the affected call sites with the knowledge base's mechanical fixes; list the rest.

    Exit 1 when findings left alone count (--fail-on, --fail-on-confidence), as compare."""
    from auditor.fix import fix_project
    from auditor.fix import write as write_files
    from auditor.fix.gitcheck import uncommitted
    from auditor.report import fix as fix_report

    not_an_input(output, first, second, config)
    if keep_old == adopt_new:
        raise UsageError("fix needs one of --keep-old and --adopt-new")
    if diff and write:
        raise UsageError("--diff and --write exclude each other")
    settings = probe_settings_for(provision or {}, cache_dir, no_cache, probe)
    options = scan_options(cache_dir, no_cache, False)
    if from_version is not None or to_version is not None:
        if from_version is None or to_version is None:
            raise UsageError("--from and --to go together")
        root = project if first is None else first
        if second is not None or root is None or (project is not None and first is not None):
            raise UsageError("with --from/--to, give the project once: fix --from A --to B DIR")
        result = pipeline.scan(root, from_version, to_version, knowledge(cache_dir, no_cache), package, python,
                               config=config, scan_options=options)
    else:
        if first is None or second is None or project is None:
            raise UsageError("fix needs OLD NEW --project DIR, or --from A --to B DIR")
        root = project
        pipeline.check_project(root)
        result = pipeline.compare(first, second, root, knowledge(cache_dir, no_cache), old_format, new_format, python,
                                  config=config, platform=platform, resolve=resolve, scan_options=options)
    fixed = fix_project(result, root, "keep-old" if keep_old else "adopt-new", min_confidence.value)
    if settings is not None:  # before anything is written: the originals are read from the files
        from auditor.fix.proof import prove

        proofs, unproven = prove(fixed, root, settings, progress_reporter())
        fixed = replace(fixed, proofs=proofs, notes=(*fixed.notes, *unproven))
    written = None
    if write:
        dirty = uncommitted(root)
        touched = {f.path for f in fixed.changed}
        if dirty and not force:
            shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
            raise UsageError(f"uncommitted changes in the project ({shown}): commit or stash them, or give --force", root)
        written = write_files(fixed, root)
        if dirty is None and touched:
            fixed = replace(fixed, notes=(*fixed.notes, f"{root} is not in a git work tree: nothing was checked before writing"))
    render_fix = fix_report.render_json if fmt is Format.json else fix_report.render_text
    emit(render_fix(fixed, written), output)
    left = replace(result, findings=tuple(x.finding for x in fixed.left_alone), environment=(),
                   gate=gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored))
    raise typer.Exit(exit_code(left))


class PlanFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


@app.command("plan", cls=Command)
@handles_errors
def plan_command(
    project: Annotated[Path, typer.Argument(help="The project (or file) to scan.")],
    lock: Annotated[Path | None, typer.Option(help="The project's current lock: the version it pins.")] = None,
    from_version: Annotated[str | None, typer.Option("--from", help="Instead of --lock: the current version.")] = None,
    package: Annotated[str, typer.Option(help="The package to plan the bumps of.")] = "torch",
    python: PythonOption = None,
    fmt: Annotated[PlanFormat, typer.Option("--format", "-f", help="Output format.")] = PlanFormat.text,
    output: OutputOption = None,
    config: ConfigOption = None,
    cache_dir: CacheDirOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Per later release up to the horizon: the call sites that would break, change results or
    warn, how many have a mechanical fix, and the environment changes that come."""
    from auditor.lockfiles.interface import parse_version
    from auditor.plan import current_version, plan
    from auditor.report.plan import RENDER

    not_an_input(output, project, lock, config)
    if (lock is None) == (from_version is None):
        raise UsageError("plan needs one of --lock and --from")
    kb = knowledge(cache_dir, no_cache)
    name = pipeline.known_package(kb, package)
    pipeline.check_project(project)
    current = current_version(lock, name) if lock is not None else parse_version(from_version or "", "--from")
    done = plan(project, kb, name, current, python, config, scan_options(cache_dir, no_cache, False))
    emit(RENDER[fmt.value](done), output)


@lock_app.command("show", cls=Command)
@handles_errors
def lock_show(
    file: Annotated[Path, typer.Argument(help="A lock file.")],
    format_in: Annotated[str | None, typer.Option(help=f"Read FILE as this lock format. {LockFormatHelp}.")] = None,
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


@kb_app.command("list", cls=Command)
@handles_errors
def kb_list(
    package: Annotated[str | None, typer.Option(help="Only this package's entries.")] = None,
    from_version: Annotated[str | None, typer.Option("--from", help="With --to: the entries this transition crosses.")] = None,
    to_version: Annotated[str | None, typer.Option("--to", help="With --from: the version after the transition.")] = None,
    kind: Annotated[str | None, typer.Option(help="Only entries of this kind.")] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Knowledge entries, optionally those a transition crosses."""
    kb = knowledge()
    warn(kb.notes)
    entries = kb.entries
    if (from_version is None) != (to_version is None):
        raise UsageError("--from and --to go together")
    if package is not None:
        package = pipeline.known_package(kb, package)
    if from_version is not None and to_version is not None:
        entries = pipeline.scan_changes(kb, package or "torch", from_version, to_version)
        transition = pipeline.transition_between(package or "torch", from_version, to_version)
        warn(kb.beyond([transition])[1] + kb.not_loaded([transition], UNLISTED))
    elif package is not None:
        entries = kb.for_package(package)
    if kind is not None:
        kinds = sorted({e.kind for e in kb.entries})
        if kind not in kinds:
            raise UsageError(f"--kind: no entry is of kind {kind!r} (kinds: {', '.join(kinds)})")
        entries = tuple(e for e in entries if e.kind == kind)
    emit(kb_report.listing(entries, fmt.value), output)


@kb_app.command("show", cls=Command)
@handles_errors
def kb_show(
    change_id: Annotated[str, typer.Argument(metavar="ID", help="The entry's id.")],
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """One entry with its docs."""
    kb = knowledge()
    warn(kb.notes)
    emit(kb_report.show(kb.get(change_id), fmt.value), output)


@kb_app.command("verify", cls=Command)
@handles_errors
def kb_verify(
    python: Annotated[str | None, typer.Option("--python", help="Run the probes in this interpreter.")] = None,
    package: Annotated[str | None, typer.Option(help="Only this package's entries.")] = None,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds the whole batch may take.")] = 600,
    memory_limit: Annotated[float | None, typer.Option(
        min=0, show_default=False,
        help="MiB of address space the probe interpreter may use (0: no limit). Default: 4096, and 8192 "
             "when the interpreter has a CUDA build of torch, whose import maps about 4.7 GiB.",
    )] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Run every probe against the installed packages and check what each entry claims."""
    from auditor.fix.probes import rewrites
    from auditor.probe import verify
    from auditor.probe.environments import describe
    from auditor.probe.executor import cuda_build
    from auditor.probe.runner import CUDA_MEMORY_LIMIT, DEFAULT_MEMORY_LIMIT

    kb = knowledge()
    warn(kb.notes)
    entries = kb.for_package(pipeline.known_package(kb, package)) if package else kb.entries
    if memory_limit is None:
        cuda = cuda_build(describe(python or sys.executable, ["torch"]))
        limit: int | None = CUDA_MEMORY_LIMIT if cuda else DEFAULT_MEMORY_LIMIT
    else:
        limit = int(memory_limit * (1 << 20)) if memory_limit else None
    verification = verify(entries, python, timeout, limit, rewrites)
    emit(kb_report.verification(verification, fmt.value), output)
    raise typer.Exit(ExitCode.FINDINGS if verification.failed else ExitCode.OK)


@kb_app.command("harvest", cls=Command)
@handles_errors
def kb_harvest(
    package: Annotated[str, typer.Option(help="torch, torchvision, torchaudio or numpy.")],
    from_version: Annotated[str, typer.Option("--from", help="The first release to read.")],
    to_version: Annotated[str, typer.Option("--to", help="The last release to read.")],
    index_url: Annotated[str | None, typer.Option(help="The simple index to read (default: PyPI's).")] = None,
    patches: Annotated[bool, typer.Option(help="Read the patch releases too, not only X.Y.0.")] = True,
    cache_dir: Annotated[Path | None, typer.Option(
        help="Where each release's harvest is kept (default: <user cache>/auditor/harvest).")] = None,
    no_cache: NoCacheOption = False,
    ship: Annotated[Path | None, typer.Option(
        help="Also write one TOML per release pair under DIR/<package>/harvest/ (the knowledge directory), "
             "and presence.json: the module names whose presence changes, for `hasattr` version guards.",
    )] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Read every release's wheel in the range (never installed, never run) and list the candidate
    changes between consecutive releases, each with its evidence."""
    from auditor.cachefiles import default_cache_dir
    from auditor.harvest import PACKAGES, HarvestSettings, harvest
    from auditor.harvest.index import DEFAULT_INDEX
    from auditor.progress import RichProgressBar, SilentProgress
    from auditor.report import harvest as harvest_report

    if package not in PACKAGES:
        raise UsageError(f"--package {package}: harvest reads {', '.join(PACKAGES)}")
    kept = None if no_cache else (cache_dir or default_cache_dir() / "harvest")
    settings = HarvestSettings(index=index_url or DEFAULT_INDEX, cache_dir=kept, patches=patches)
    bar = RichProgressBar() if sys.stderr.isatty() else SilentProgress()
    result = harvest(package, from_version, to_version, settings, bar)
    if ship is not None:
        from auditor.harvest.shipped import ship as ship_harvest

        try:
            ship_harvest(result, ship)
        except OSError as exc:
            raise UsageError(f"cannot write: {exc.strerror or exc}", ship) from exc
    emit(harvest_report.render(result, fmt.value), output)


@kb_app.command("coverage", cls=Command)
@handles_errors
def kb_coverage(
    package: Annotated[str | None, typer.Option(help="Only this package.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List the open candidates with why.")] = False,
    knowledge_dir: Annotated[Path | None, typer.Option(
        "--knowledge", help="Another knowledge directory (a checkout under review) instead of the shipped one.",
    )] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Per release: the harvested candidates covered by a curated entry, generated, waived, or open;
    and each curated entry's release against the candidates (exit 1 when one disagrees)."""
    from auditor.harvest.coverage import coverage
    from auditor.knowledge import KnowledgeBase
    from auditor.knowledge.loader import default_directory
    from auditor.report import harvest as harvest_report

    if knowledge_dir is not None and not knowledge_dir.is_dir():
        raise UsageError("--knowledge: not a directory", knowledge_dir)
    root = knowledge_dir or default_directory()
    kb = KnowledgeBase.load(knowledge_dir) if knowledge_dir else knowledge()
    packages = [pipeline.package_name(package)] if package else sorted(
        p.parent.name for p in root.glob("*/harvest") if p.is_dir())
    results = [coverage(root, p, kb.entries, witnessed=True) for p in packages]
    emit(harvest_report.coverage(results, fmt.value, verbose), output)
    failed = any(c.witness is not None and c.witness.failed for c in results)
    raise typer.Exit(ExitCode.FINDINGS if failed else ExitCode.OK)


KnowledgeDir = Annotated[Path | None, typer.Option(
    "--knowledge", help="The knowledge directory of a checkout (default: this one's).", file_okay=False,
)]


@kb_app.command("new", cls=Command)
@handles_errors
def kb_new(
    package: Annotated[str, typer.Argument(help="The package that changes, such as torch.")],
    version: Annotated[str, typer.Argument(help="The release that brings the change, such as 2.16.0.")],
    stem: Annotated[str, typer.Argument(help="The change's name in its folder; its id is PACKAGE-STEM.")],
    knowledge_dir: KnowledgeDir = None,
) -> None:
    """A new change's folder: an entry to fill in (the loader refuses it until then) and fixtures."""
    from auditor.knowledge.loader import default_directory
    from auditor.knowledge.scaffold import new_change

    typer.echo(new_change(knowledge_dir or default_directory(), package, version, stem))


@kb_app.command("snapshot", cls=Command)
@handles_errors
def kb_snapshot(
    ids: Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="Only these entries.")] = None,
    knowledge_dir: KnowledgeDir = None,
) -> None:
    """Write each change's fix snapshots: what fix --keep-old and --adopt-new make of positive.py."""
    from auditor.fix.snapshots import write_snapshots
    from auditor.knowledge import KnowledgeBase
    from auditor.knowledge.loader import default_directory

    root = knowledge_dir or default_directory()
    kb = KnowledgeBase.load(root)
    entries = [kb.get(i) for i in ids] if ids else kb.entries
    for path in write_snapshots(((root / e.source).parent, e) for e in entries):
        typer.echo(path)


@app.command("github", cls=Command)
@handles_errors
def github_command(
    project: Annotated[Path, typer.Option(envvar="AUDITOR_PROJECT", help="The project to scan, relative to the workspace.")] = Path("."),
    lockfiles: Annotated[str | None, typer.Option(
        envvar="AUDITOR_LOCKFILES", help="Lockfile globs to watch, comma or newline separated (default: detect).",
    )] = None,
    fail_on: Annotated[FailOn, typer.Option(envvar="AUDITOR_FAIL_ON", help="Exit 1 when a finding is at or above this severity.")] = FailOn.low,
    fail_on_confidence: Annotated[Confidence, typer.Option(envvar="AUDITOR_FAIL_ON_CONFIDENCE", help=ConfidenceHelp)] = Confidence.medium,
    fail_on_warnings: Annotated[bool, typer.Option(
        "--fail-on-warnings/--no-fail-on-warnings", envvar="AUDITOR_FAIL_ON_WARNINGS", help=WarningsHelp)] = False,
    comment: Annotated[str, typer.Option(envvar="AUDITOR_COMMENT", help="PR comment: always, on-findings or never.")] = "always",
    probe: Annotated[bool, typer.Option(envvar="AUDITOR_PROBE", help="Run each crossed change's probe on both versions.")] = False,
    label: Annotated[str | None, typer.Option(envvar="AUDITOR_LABEL", help="Add this label to the PR when call sites are affected.")] = None,
    base: Annotated[str | None, typer.Option(envvar="AUDITOR_BASE", help="Base commit (default: from the event).")] = None,
    head: Annotated[str | None, typer.Option(envvar="AUDITOR_HEAD", help="Head commit (default: from the event).")] = None,
    sarif_file: Annotated[Path | None, typer.Option("--sarif", envvar="AUDITOR_SARIF", help="Also write SARIF to this file.")] = None,
    dependency_names: Annotated[str | None, typer.Option(envvar="AUDITOR_DEPENDENCY_NAMES", help="dependabot/fetch-metadata dependency-names.")] = None,
    previous_version: Annotated[str | None, typer.Option(envvar="AUDITOR_PREVIOUS_VERSION", help="dependabot/fetch-metadata previous-version.")] = None,
    new_version: Annotated[str | None, typer.Option(envvar="AUDITOR_NEW_VERSION", help="dependabot/fetch-metadata new-version.")] = None,
    python: Annotated[str | None, typer.Option("--python-version", envvar="AUDITOR_PYTHON_VERSION", callback=python_version,
                                               help="The project's Python.")] = None,
    fix: Annotated[str, typer.Option(envvar="AUDITOR_FIX", help=(
        "keep-old or adopt-new: commit that rewrite to the PR's branch when it is a bot's (dependabot/, renovate/) "
        "and the token may push; empty: none."))] = "",
    harvested: Annotated[bool, typer.Option("--harvested", envvar="AUDITOR_HARVESTED", help=HarvestedHelp)] = False,
    harvest: Annotated[bool, typer.Option("--harvest/--no-harvest", envvar="AUDITOR_HARVEST", help=HarvestHelp)] = False,
    index_url: IndexUrlOption = None,
    dependencies: Annotated[bool, typer.Option(
        "--dependencies/--no-dependencies", envvar="AUDITOR_DEPENDENCIES",
        help="Read the new lock's dependencies from the index (their requirements on torch, their calls to it).",
    )] = True,
) -> None:
    """What the GitHub Action runs: audit the PR's lockfile changes, write the summary, outputs and comment."""
    import os

    from auditor.github import action
    from auditor.github.bump import from_metadata
    from auditor.github.event import ActionsEnv
    from auditor.report import github as annotations

    env = ActionsEnv.from_environ(os.environ)
    options = action.ActionOptions(
        project=project,
        patterns=action.split_patterns(lockfiles),
        comment=action.comment_mode(comment),
        label=label or None,
        python=python or None,
        base=base or None,
        head=head or None,
        sarif=sarif_file,
        metadata=from_metadata(dependency_names or "", previous_version or "", new_version or ""),
        probe=(lambda result, scanned: run_probes(result, probe_settings(cache_dir=None, no_cache=False), scanned))
        if probe else None,
        confidence=fail_on_confidence.value,
        gate=gate(fail_on, fail_on_confidence, fail_on_warnings),
        fix=action.fix_mode(fix),
        dependencies=dependency_settings(not dependencies, None, index_url, None, False),
    )
    try:
        done = action.run(env, options, knowledge(harvested=harvested, harvest=harvest, index_url=index_url))
    except Exception as exc:  # the workflow's log and summary say it too, whatever it was
        message = str(exc) if isinstance(exc, AuditorError) else crash_line(exc, "github")
        typer.echo(f"::error title=auditor::{annotations.escape_data(message)}")
        action.summarise_failure(env, message)
        raise
    for warning in done.warnings:
        typer.echo(f"::warning title=auditor::{annotations.escape_data(warning)}")
    sys.stdout.write(annotations.render(done.result, prefix=done.prefix))
    transitions = ", ".join(f"{t.package} {t.old} -> {t.new}" for t in done.result.transitions) or "no known package moved"
    counts = tally(done.result)
    low = f" (and {counts.low_call_sites} at low confidence)" if counts.low_call_sites else ""
    typer.echo(f"auditor: {transitions}; {len(done.result.changes)} change(s), {counts.call_sites} call site(s){low}")
    if done.comment is not None and done.comment.url:
        typer.echo(f"auditor: PR comment {done.comment.action}: {done.comment.url}")
    if done.fix_commit is not None and done.fix_commit.sha:
        typer.echo(f"auditor: fix commit {done.fix_commit.sha} pushed ({done.fix_commit.rewritten} call site(s) rewritten)")
    raise typer.Exit(exit_code(done.result))


@app.command("probe", cls=Command)
@handles_errors
@probe_options
def probe_command(
    from_version: Annotated[str, typer.Option("--from", help="The version before the bump.")],
    to_version: Annotated[str, typer.Option("--to", help="The version after the bump.")],
    package: Annotated[str, typer.Option(help="The package that moves.")] = "torch",
    cache_dir: ProbeCacheDirOption = None,
    no_cache: ProbeNoCacheOption = False,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
    provision: Provision | None = None,
) -> None:
    """Run the probes of the entries a transition crosses in an environment of each version.

    Exit 1 when a probe does not reproduce what its entry claims.
    """
    from auditor.report import probe as probe_report

    settings = probe_settings_for(provision or {}, cache_dir, no_cache)
    result = pipeline.probe(knowledge(), package, from_version, to_version, settings, progress_reporter())
    emit(probe_report.render(result, fmt.value), output)
    failed = any(p.status == "not-reproduced" for p in result.probes)
    raise typer.Exit(ExitCode.FINDINGS if failed else ExitCode.OK)


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
