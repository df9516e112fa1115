"""From command-line options to the stages' settings: caches, progress, probes, report links.

Kept out of cli.py so the command functions stay one call into the pipeline each.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from auditor import pipeline
from auditor.models import AuditResult


def repository_prefix(project: Path | None) -> str:
    """The project's folder relative to the working directory, for SARIF and annotation paths."""
    if project is None:
        return ""
    try:
        rel = project.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel + "/"


def actions_links(project: Path | None) -> Any:
    """Inside GitHub Actions, Markdown links each call site to the commit being checked."""
    from auditor.report.markdown import Links

    repository, sha = os.environ.get("GITHUB_REPOSITORY"), os.environ.get("GITHUB_SHA")
    if not repository or not sha:
        return None
    server = os.environ.get("GITHUB_SERVER_URL") or "https://github.com"
    return Links(repository, sha, server, repository_prefix(project))


def knowledge(cache_dir: Path | None = None, no_cache: bool = False) -> Any:
    """The knowledge base, kept parsed and checked under `<cache dir>/knowledge` between runs."""
    from auditor.knowledge import KnowledgeBase
    from auditor.probe import default_cache_dir

    return KnowledgeBase.load(cache_dir=None if no_cache else (cache_dir or default_cache_dir()))


def scan_options(cache_dir: Path | None, no_cache: bool, watched_format: bool) -> Any:
    """The scan's cache (`<cache dir>/scan`) and a progress bar when a person watches a text report."""
    from auditor.probe import default_cache_dir  # one cache root for scans and probes
    from auditor.progress import SILENT, RichProgressBar
    from auditor.scan.project import ScanOptions

    directory = None if no_cache else (cache_dir or default_cache_dir()) / "scan"
    watched = sys.stderr.isatty() and watched_format
    return ScanOptions(cache_dir=directory, progress=RichProgressBar() if watched else SILENT)


def progress_reporter() -> Any:
    """Progress on stderr when a person watches it; silent in pipes and CI logs."""
    from auditor.progress import SILENT, RichReporter

    return RichReporter() if sys.stderr.isatty() else SILENT


def probe_settings(**options: Any) -> Any:
    from auditor.probe import ProbeSettings, Sources

    sources = Sources(use_pip_config=not options.pop("no_pip_config"))
    sources = sources.with_options(
        index_url=options.pop("index_url"),
        extra_index_urls=tuple(options.pop("extra_index_url") or ()),
        find_links=tuple(options.pop("find_links") or ()),
        offline=options.pop("offline"),
    )
    torch_index = options.pop("torch_index")
    if torch_index is not None:
        from dataclasses import replace

        sources = replace(sources, torch_index=torch_index or None)
    memory = options.pop("memory_limit")
    return ProbeSettings(
        sources=sources,
        use_cache=not options.pop("no_cache"),
        memory_limit=int(memory * (1 << 20)) if memory else None,
        **options,
    )


def run_probes(
    result: AuditResult, cache_dir: Path | None, no_cache: bool, project: Path | None = None
) -> AuditResult:
    """`--probe` on compare/scan: the probe command's defaults (pip's configuration, the user cache);
    with the scanned `project`, its literal-only flagged expressions are evaluated too."""
    from auditor.probe import ProbeSettings, Sources

    settings = ProbeSettings(cache_dir=cache_dir, use_cache=not no_cache, sources=Sources(use_pip_config=True))
    return pipeline.with_probes(result, settings, progress_reporter(), project)
