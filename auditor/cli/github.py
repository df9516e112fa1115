"""The command the GitHub Action runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from auditor.cli.common import (
    Command,
    Confidence,
    ConfidenceHelp,
    FailOn,
    HarvestedHelp,
    HarvestHelp,
    IndexUrlOption,
    WarningsHelp,
    app,
    crash_line,
    exit_code,
    gate,
    handles_errors,
    python_version,
)
from auditor.cli.dependencies import DependenciesSwitch, dependency_settings
from auditor.errors import AuditorError
from auditor.report.summary import tally
from auditor.requests import Probing
from auditor.settings import knowledge, probe_settings, progress_reporter


@app.command("github", cls=Command)
@handles_errors
def github_command(
    project: Annotated[
        Path,
        typer.Option(
            envvar="AUDITOR_PROJECT", help="The project to scan, relative to the workspace."
        ),
    ] = Path("."),
    lockfiles: Annotated[
        str | None,
        typer.Option(
            envvar="AUDITOR_LOCKFILES",
            help="Lockfile globs to watch, comma or newline separated (default: detect).",
        ),
    ] = None,
    fail_on: Annotated[
        FailOn,
        typer.Option(
            envvar="AUDITOR_FAIL_ON", help="Exit 1 when a finding is at or above this severity."
        ),
    ] = FailOn.low,
    fail_on_confidence: Annotated[
        Confidence, typer.Option(envvar="AUDITOR_FAIL_ON_CONFIDENCE", help=ConfidenceHelp)
    ] = Confidence.medium,
    fail_on_warnings: Annotated[
        bool,
        typer.Option(
            "--fail-on-warnings/--no-fail-on-warnings",
            envvar="AUDITOR_FAIL_ON_WARNINGS",
            help=WarningsHelp,
        ),
    ] = False,
    comment: Annotated[
        str,
        typer.Option(envvar="AUDITOR_COMMENT", help="PR comment: always, on-findings or never."),
    ] = "always",
    probe: Annotated[
        bool,
        typer.Option(
            envvar="AUDITOR_PROBE", help="Run each crossed change's probe on both versions."
        ),
    ] = False,
    label: Annotated[
        str | None,
        typer.Option(
            envvar="AUDITOR_LABEL", help="Add this label to the PR when call sites are affected."
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(envvar="AUDITOR_BASE", help="Base commit (default: from the event)."),
    ] = None,
    head: Annotated[
        str | None,
        typer.Option(envvar="AUDITOR_HEAD", help="Head commit (default: from the event)."),
    ] = None,
    sarif_file: Annotated[
        Path | None,
        typer.Option("--sarif", envvar="AUDITOR_SARIF", help="Also write SARIF to this file."),
    ] = None,
    dependency_names: Annotated[
        str | None,
        typer.Option(
            envvar="AUDITOR_DEPENDENCY_NAMES", help="dependabot/fetch-metadata dependency-names."
        ),
    ] = None,
    previous_version: Annotated[
        str | None,
        typer.Option(
            envvar="AUDITOR_PREVIOUS_VERSION", help="dependabot/fetch-metadata previous-version."
        ),
    ] = None,
    new_version: Annotated[
        str | None,
        typer.Option(envvar="AUDITOR_NEW_VERSION", help="dependabot/fetch-metadata new-version."),
    ] = None,
    python: Annotated[
        str | None,
        typer.Option(
            "--python-version",
            envvar="AUDITOR_PYTHON_VERSION",
            callback=python_version,
            help="The project's Python.",
        ),
    ] = None,
    fix: Annotated[
        str,
        typer.Option(
            envvar="AUDITOR_FIX",
            help=(
                "keep-old or adopt-new: commit that rewrite to the PR's branch when it is a bot's (dependabot/, renovate/) "
                "and the token may push; empty: none."
            ),
        ),
    ] = "",
    harvested: Annotated[
        bool, typer.Option("--harvested", envvar="AUDITOR_HARVESTED", help=HarvestedHelp)
    ] = False,
    harvest: Annotated[
        bool, typer.Option("--harvest/--no-harvest", envvar="AUDITOR_HARVEST", help=HarvestHelp)
    ] = False,
    index_url: IndexUrlOption = None,
    dependencies: DependenciesSwitch = True,
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
        probe=Probing(probe_settings(), progress_reporter(), tolerant=True) if probe else None,
        confidence=fail_on_confidence.value,
        gate=gate(fail_on, fail_on_confidence, fail_on_warnings),
        fix=action.fix_mode(fix),
        dependencies=dependency_settings(not dependencies, None, index_url, None, False),
    )
    try:
        done = action.run(
            env, options, knowledge(harvested=harvested, harvest=harvest, index_url=index_url)
        )
    except Exception as exc:  # the workflow's log and summary say it too, whatever it was
        message = str(exc) if isinstance(exc, AuditorError) else crash_line(exc, "github")
        typer.echo(f"::error title=auditor::{annotations.escape_data(message)}")
        action.summarise_failure(env, message)
        raise
    for warning in done.warnings:
        typer.echo(f"::warning title=auditor::{annotations.escape_data(warning)}")
    sys.stdout.write(annotations.render(done.result, prefix=done.prefix))
    transitions = (
        ", ".join(f"{t.package} {t.old} -> {t.new}" for t in done.result.transitions)
        or "no known package moved"
    )
    counts = tally(done.result)
    low = f" (and {counts.low_call_sites} at low confidence)" if counts.low_call_sites else ""
    typer.echo(
        f"auditor: {transitions}; {len(done.result.changes)} change(s), {counts.call_sites} call site(s){low}"
    )
    if done.comment is not None and done.comment.url:
        typer.echo(f"auditor: PR comment {done.comment.action}: {done.comment.url}")
    if done.fix_commit is not None and done.fix_commit.sha:
        typer.echo(
            f"auditor: fix commit {done.fix_commit.sha} pushed ({done.fix_commit.rewritten} call site(s) rewritten)"
        )
    raise typer.Exit(exit_code(done.result))
