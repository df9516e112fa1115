"""`auditor fix` and `auditor plan`: options into a request, the pipeline's rewrites and plan out."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from auditor import pipeline
from auditor.cli.common import (
    CacheDirOption,
    Command,
    Confidence,
    ConfigOption,
    FailOn,
    FailOnConfidenceOption,
    FailOnOption,
    FailOnVendoredFlag,
    FailOnWarningsFlag,
    Format,
    FormatOption,
    NoCacheOption,
    OutputOption,
    PlatformOption,
    PythonOption,
    ResolveFlag,
    app,
    exit_code,
    gate,
    handles_errors,
)
from auditor.cli.output import emit, not_an_input
from auditor.cli.provision import Provision, probe_options, probe_settings_for, probing
from auditor.errors import UsageError
from auditor.requests import (
    AuditRequest,
    EnvironmentChoice,
    FixRequest,
    LockPair,
    PlanRequest,
    VersionPair,
)
from auditor.settings import knowledge, scan_options


@app.command("fix", cls=Command)
@handles_errors
@probe_options
def fix_command(
    first: Annotated[
        Path | None,
        typer.Argument(
            metavar="OLD|DIR", help="The lock before the bump; with --from/--to, the project."
        ),
    ] = None,
    second: Annotated[
        Path | None, typer.Argument(metavar="NEW", help="The lock after the bump.")
    ] = None,
    project: Annotated[
        Path | None, typer.Option(help="The project whose call sites are rewritten.")
    ] = None,
    keep_old: Annotated[
        bool,
        typer.Option(
            "--keep-old", help="Rewrite so the code behaves on the new version as on the old one."
        ),
    ] = False,
    adopt_new: Annotated[
        bool,
        typer.Option(
            "--adopt-new", help="Rewrite to the new behaviour, the same on both versions."
        ),
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print the rewrite as a unified diff (the default).")
    ] = False,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Write the rewritten files: all or none, every byte outside the rewritten lines kept.",
        ),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="--write even where git shows uncommitted changes.")
    ] = False,
    min_confidence: Annotated[
        Confidence, typer.Option(help="Rewrite only findings at or above this confidence.")
    ] = Confidence.high,
    from_version: Annotated[
        str | None,
        typer.Option("--from", help="Instead of OLD and NEW: the version before the bump."),
    ] = None,
    to_version: Annotated[
        str | None, typer.Option("--to", help="With --from: the version after the bump.")
    ] = None,
    package: Annotated[
        str, typer.Option(help="With --from/--to: the package that moves.")
    ] = "torch",
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
    probe: Annotated[
        bool,
        typer.Option(
            "--probe",
            help="Run each rewritten literal-only site and the original on both versions, and every call shape the applied fixes claim: the proof.",
        ),
    ] = False,
    cache_dir: CacheDirOption = None,
    no_cache: NoCacheOption = False,
    provision: Provision | None = None,
) -> None:
    """Rewrite the affected call sites with the knowledge base's mechanical fixes; list the rest.

    Exit 1 when findings left alone count (--fail-on, --fail-on-confidence), as compare."""
    from auditor.report import fix as fix_report

    not_an_input(output, first, second, config)
    if keep_old == adopt_new:
        raise UsageError("fix needs one of --keep-old and --adopt-new")
    if diff and write:
        raise UsageError("--diff and --write exclude each other")
    settings = probe_settings_for(provision or {}, cache_dir, no_cache, probe)
    inputs: LockPair | VersionPair
    if from_version is not None or to_version is not None:
        if from_version is None or to_version is None:
            raise UsageError("--from and --to go together")
        root = project if first is None else first
        if second is not None or root is None or (project is not None and first is not None):
            raise UsageError("with --from/--to, give the project once: fix --from A --to B DIR")
        inputs = VersionPair(package, from_version, to_version)
    else:
        if first is None or second is None or project is None:
            raise UsageError("fix needs OLD NEW --project DIR, or --from A --to B DIR")
        root, inputs = project, LockPair(first, second, old_format, new_format)
    audit = AuditRequest(
        inputs,
        root,
        EnvironmentChoice(python, platform, resolve),
        config,
        scan_options(cache_dir, no_cache, False),
        None,
        gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored),
    )
    done = pipeline.fix(
        FixRequest(
            audit,
            root,
            "keep-old" if keep_old else "adopt-new",
            min_confidence.value,
            probing(settings),
            write,
            force,
        ),
        knowledge(cache_dir, no_cache),
    )
    render_fix = fix_report.render_json if fmt is Format.json else fix_report.render_text
    emit(render_fix(done.fixed, done.written), output)
    raise typer.Exit(exit_code(done.left()))


class PlanFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


@app.command("plan", cls=Command)
@handles_errors
def plan_command(
    project: Annotated[Path, typer.Argument(help="The project (or file) to scan.")],
    lock: Annotated[
        Path | None, typer.Option(help="The project's current lock: the version it pins.")
    ] = None,
    from_version: Annotated[
        str | None, typer.Option("--from", help="Instead of --lock: the current version.")
    ] = None,
    package: Annotated[str, typer.Option(help="The package to plan the bumps of.")] = "torch",
    python: PythonOption = None,
    fmt: Annotated[
        PlanFormat, typer.Option("--format", "-f", help="Output format.")
    ] = PlanFormat.text,
    output: OutputOption = None,
    config: ConfigOption = None,
    cache_dir: CacheDirOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Per later release up to the horizon: the call sites that would break, change results or
    warn, how many have a mechanical fix, and the environment changes that come."""
    from auditor.plan import plan
    from auditor.report.plan import RENDER

    not_an_input(output, project, lock, config)
    if (lock is None) == (from_version is None):
        raise UsageError("plan needs one of --lock and --from")
    done = plan(
        PlanRequest(
            project,
            package,
            lock,
            from_version,
            EnvironmentChoice(python),
            config,
            scan_options(cache_dir, no_cache, False),
        ),
        knowledge(cache_dir, no_cache),
    )
    emit(RENDER[fmt.value](done), output)
