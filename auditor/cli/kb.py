"""The knowledge base commands: list, show, verify, harvest, cxx and coverage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from auditor import pipeline
from auditor.cli.common import (
    Command,
    Format,
    FormatOption,
    NoCacheOption,
    OutputOption,
    handles_errors,
    kb_app,
)
from auditor.cli.output import emit, warn
from auditor.errors import ExitCode, UsageError
from auditor.knowledge.base import UNLISTED
from auditor.report import kb as kb_report
from auditor.settings import knowledge


@kb_app.command("list", cls=Command)
@handles_errors
def kb_list(
    package: Annotated[str | None, typer.Option(help="Only this package's entries.")] = None,
    from_version: Annotated[
        str | None, typer.Option("--from", help="With --to: the entries this transition crosses.")
    ] = None,
    to_version: Annotated[
        str | None, typer.Option("--to", help="With --from: the version after the transition.")
    ] = None,
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
    python: Annotated[
        str | None, typer.Option("--python", help="Run the probes in this interpreter.")
    ] = None,
    package: Annotated[str | None, typer.Option(help="Only this package's entries.")] = None,
    timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds the whole batch may take.")
    ] = 600,
    memory_limit: Annotated[
        float | None,
        typer.Option(
            min=0,
            show_default=False,
            help="MiB of address space the probe interpreter may use (0: no limit). Default: 4096, and 8192 "
            "when the interpreter has a CUDA build of torch, whose import maps about 4.7 GiB.",
        ),
    ] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Run every probe against the installed packages and check what each entry claims."""
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
    from auditor.fix.probes import rewrites

    verification = verify(entries, python, timeout, limit, rewrites)
    emit(kb_report.verification(verification, fmt.value), output)
    raise typer.Exit(ExitCode.FINDINGS if verification.failed else ExitCode.OK)


@kb_app.command("harvest", cls=Command)
@handles_errors
def kb_harvest(
    package: Annotated[str, typer.Option(help="torch, torchvision, torchaudio or numpy.")],
    from_version: Annotated[str, typer.Option("--from", help="The first release to read.")],
    to_version: Annotated[str, typer.Option("--to", help="The last release to read.")],
    index_url: Annotated[
        str | None, typer.Option(help="The simple index to read (default: PyPI's).")
    ] = None,
    patches: Annotated[
        bool, typer.Option(help="Read the patch releases too, not only X.Y.0.")
    ] = True,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            help="Where each release's harvest is kept (default: <user cache>/auditor/harvest)."
        ),
    ] = None,
    no_cache: NoCacheOption = False,
    ship: Annotated[
        Path | None,
        typer.Option(
            help="Also write one TOML per release pair under DIR/<package>/harvest/ (the knowledge directory), "
            "and presence.json: the module names whose presence changes, for `hasattr` version guards.",
        ),
    ] = None,
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


@kb_app.command("cxx", cls=Command)
@handles_errors
def kb_cxx(
    from_version: Annotated[
        str, typer.Option("--from", help="The first release to read.")
    ] = "1.0.0",
    to_version: Annotated[str, typer.Option("--to", help="The last release to read.")] = "2.13.0",
    index_url: Annotated[
        str | None, typer.Option(help="The simple index to read (default: PyPI's).")
    ] = None,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            help="Where each release's messages are kept (default: <user cache>/auditor/harvest)."
        ),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Read every release again; keep nothing.")
    ] = False,
    ship: Annotated[
        Path | None,
        typer.Option(
            help="Also write one TOML per release pair under DIR/torch/harvest/cxx/ (the knowledge directory).",
        ),
    ] = None,
    output: OutputOption = None,
) -> None:
    """Read the deprecation, removal and behaviour-change messages compiled into torch's C++
    libraries, one wheel per minor release (only the libraries are downloaded, through range
    requests; nothing is installed or run), and list the messages that appear or disappear."""
    from packaging.version import InvalidVersion, Version

    from auditor.cachefiles import default_cache_dir
    from auditor.harvest import cxx
    from auditor.harvest.index import DEFAULT_INDEX
    from auditor.progress import RichProgressBar, SilentProgress

    try:
        low, high = Version(from_version), Version(to_version)
    except InvalidVersion as exc:
        raise UsageError(f"--from/--to: {exc}") from exc
    if low > high:
        raise UsageError(f"--from {from_version} is newer than --to {to_version}")
    kept = None if no_cache else (cache_dir or default_cache_dir() / "harvest")
    bar = RichProgressBar() if sys.stderr.isatty() else SilentProgress()
    result = cxx.harvest("torch", low, high, index_url or DEFAULT_INDEX, kept, bar)
    if ship is not None:
        try:
            cxx.ship("torch", list(result.releases), list(result.candidates), ship)
        except OSError as exc:
            raise UsageError(f"cannot write: {exc.strerror or exc}", ship) from exc
    emit(cxx.summary(result), output)


@kb_app.command("coverage", cls=Command)
@handles_errors
def kb_coverage(
    package: Annotated[str | None, typer.Option(help="Only this package.")] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List the open candidates with why.")
    ] = False,
    knowledge_dir: Annotated[
        Path | None,
        typer.Option(
            "--knowledge",
            help="Another knowledge directory (a checkout under review) instead of the shipped one.",
        ),
    ] = None,
    fmt: FormatOption = Format.text,
    output: OutputOption = None,
) -> None:
    """Per release: the harvested candidates covered by a curated entry, generated, waived, or open;
    and each curated entry's release against the candidates (exit 1 when one disagrees)."""
    from auditor.harvest.coverage import coverage
    from auditor.knowledge.base import KnowledgeBase
    from auditor.knowledge.loader import default_directory
    from auditor.report import harvest as harvest_report

    if knowledge_dir is not None and not knowledge_dir.is_dir():
        raise UsageError("--knowledge: not a directory", knowledge_dir)
    root = knowledge_dir or default_directory()
    kb = KnowledgeBase.load(knowledge_dir) if knowledge_dir else knowledge()
    packages = (
        [pipeline.package_name(package)]
        if package
        else sorted(p.parent.name for p in root.glob("*/harvest") if p.is_dir())
    )
    results = [coverage(root, p, kb.entries, witnessed=True) for p in packages]
    emit(harvest_report.coverage(results, fmt.value, verbose), output)
    failed = any(c.witness is not None and c.witness.failed for c in results)
    raise typer.Exit(ExitCode.FINDINGS if failed else ExitCode.OK)
