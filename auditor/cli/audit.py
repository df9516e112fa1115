"""The audit commands: compare and scan."""

from __future__ import annotations

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
    HarvestedFlag,
    HarvestFlag,
    NoCacheOption,
    OutputOption,
    PlatformOption,
    ProbeFlag,
    PythonOption,
    ReportFormat,
    ReportFormatOption,
    ResolveFlag,
    app,
    exit_code,
    gate,
    handles_errors,
)
from auditor.cli.dependencies import NoDependenciesFlag, SitePackagesOption, dependency_settings
from auditor.cli.output import not_an_input, render, report_fixes
from auditor.cli.provision import Provision, probe_options, probe_settings_for, probing
from auditor.errors import UsageError
from auditor.requests import (
    AuditRequest,
    EnvironmentChoice,
    GitRange,
    LockPair,
    VersionPair,
)
from auditor.settings import knowledge, scan_options


@app.command(cls=Command)
@handles_errors
@probe_options
def compare(
    old: Annotated[Path | None, typer.Argument(help="The lock before the bump.")] = None,
    new: Annotated[Path | None, typer.Argument(help="The lock after the bump.")] = None,
    project: Annotated[
        Path | None, typer.Option(help="The project to scan for call sites.")
    ] = None,
    old_format: Annotated[str | None, typer.Option(help="Read OLD as this lock format.")] = None,
    new_format: Annotated[str | None, typer.Option(help="Read NEW as this lock format.")] = None,
    python: PythonOption = None,
    platform: PlatformOption = None,
    resolve: ResolveFlag = False,
    git_range: Annotated[
        str | None,
        typer.Option(
            "--git",
            metavar="BASE..HEAD",
            help="Instead of OLD and NEW: every lockfile changed between two commits (BASE.. : the working tree).",
        ),
    ] = None,
    lockfiles: Annotated[
        str | None,
        typer.Option(
            help="With --git: lockfile globs to read, comma or newline separated (default: detect by name, folder and content).",
        ),
    ] = None,
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
    settings = probe_settings_for(
        provision or {}, cache_dir, no_cache, probe, harvest, not no_dependencies
    )
    dependencies = dependency_settings(
        no_dependencies, site_packages, (provision or {}).get("index_url"), cache_dir, no_cache
    )
    options = scan_options(cache_dir, no_cache, fmt in (ReportFormat.text, ReportFormat.markdown))
    kb = knowledge(cache_dir, no_cache, harvested, harvest, (provision or {}).get("index_url"))
    if lockfiles is not None and git_range is None:
        raise UsageError("--lockfiles: only used with --git")
    inputs: LockPair | GitRange
    if git_range is not None:
        if old is not None or new is not None:
            raise UsageError("--git replaces OLD and NEW: give one or the other")
        from auditor.github.action import split_patterns
        from auditor.gitrange import parse_range, root

        base, head = parse_range(git_range)
        repo = root(project if project is not None and project.is_dir() else Path.cwd())
        inputs = GitRange(repo, base, head, split_patterns(lockfiles), old_format, new_format)
    elif old is None or new is None:
        raise UsageError("compare needs OLD and NEW, or --git BASE..HEAD")
    else:
        inputs = LockPair(old, new, old_format, new_format)
    locks = (old, new) if old is not None and new is not None else None
    audited = pipeline.run(
        AuditRequest(
            inputs,
            project,
            EnvironmentChoice(python, platform, resolve),
            config,
            options,
            probing(settings),
            gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored),
            dependencies,
            report_fixes(fmt, project, locks),
        ),
        kb,
    )
    render(audited, fmt, output, project, locks)
    raise typer.Exit(exit_code(audited.result))


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
    project = path if path.is_dir() else None
    audited = pipeline.run(
        AuditRequest(
            VersionPair(package, from_version, to_version),
            path,
            EnvironmentChoice(python),
            config,
            scan_options(cache_dir, no_cache, fmt in (ReportFormat.text, ReportFormat.markdown)),
            probing(settings),
            gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored),
            fixes=report_fixes(fmt, project),
        ),
        kb,
    )
    render(audited, fmt, output, project)
    raise typer.Exit(exit_code(audited.result))
