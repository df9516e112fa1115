"""The audit commands: compare, scan, fix and plan."""

from __future__ import annotations

from dataclasses import replace
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
from auditor.cli.output import emit, not_an_input, render
from auditor.cli.provision import Provision, probe_options, probe_settings_for, probing
from auditor.errors import UsageError
from auditor.requests import AuditRequest, EnvironmentChoice, GitRange, LockPair, VersionPair
from auditor.settings import knowledge, progress_reporter, scan_options


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
    result = pipeline.run(AuditRequest(
        inputs, project, EnvironmentChoice(python, platform, resolve), config, options, probing(settings),
        gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored), dependencies,
    ), kb)
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
    result = pipeline.run(AuditRequest(
        VersionPair(package, from_version, to_version), path, EnvironmentChoice(python), config,
        scan_options(cache_dir, no_cache, fmt in (ReportFormat.text, ReportFormat.markdown)), probing(settings),
        gate(fail_on, fail_on_confidence, fail_on_warnings, fail_on_vendored),
    ), kb)
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
    from auditor.fix.apply import fix_project
    from auditor.fix.gitcheck import uncommitted
    from auditor.fix.writer import write as write_files
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
