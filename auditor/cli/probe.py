"""The probe command: run the probes a transition crosses in an environment of each version."""

from __future__ import annotations

from typing import Annotated

import typer

from auditor import pipeline
from auditor.cli.common import (
    Command,
    Format,
    FormatOption,
    OutputOption,
    ProbeCacheDirOption,
    ProbeNoCacheOption,
    app,
    handles_errors,
)
from auditor.cli.output import emit
from auditor.cli.provision import Provision, probe_options, provisioned
from auditor.errors import ExitCode
from auditor.settings import knowledge, progress_reporter


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

    settings = provisioned(provision or {}, cache_dir, no_cache)
    result = pipeline.probe(
        knowledge(), package, from_version, to_version, settings, progress_reporter()
    )
    emit(probe_report.render(result, fmt.value), output)
    failed = any(p.status == "not-reproduced" for p in result.probes)
    raise typer.Exit(ExitCode.FINDINGS if failed else ExitCode.OK)
