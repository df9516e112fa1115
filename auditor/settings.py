"""From command-line options to the stages' settings: caches, progress, probes, report links.

Kept out of auditor/cli/ so the command functions stay one call into the pipeline each.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded when a builder runs, so that --help stays quick
    from auditor.knowledge.base import KnowledgeBase
    from auditor.probe import ProbeSettings
    from auditor.progress import Reporter
    from auditor.report.markdown import Links
    from auditor.scan.project import ScanOptions


def repository_prefix(project: Path | None) -> str:
    """The project's folder relative to the working directory, for SARIF and annotation paths."""
    if project is None:
        return ""
    try:
        rel = project.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel + "/"


def actions_links(project: Path | None) -> Links | None:
    """Inside GitHub Actions, Markdown links each call site to the commit being checked."""
    from auditor.report.markdown import Links

    repository, sha = os.environ.get("GITHUB_REPOSITORY"), os.environ.get("GITHUB_SHA")
    if not repository or not sha:
        return None
    server = os.environ.get("GITHUB_SERVER_URL") or "https://github.com"
    return Links(repository, sha, server, repository_prefix(project))


def knowledge(
    cache_dir: Path | None = None,
    no_cache: bool = False,
    harvested: bool = False,
    harvest: bool = False,
    index_url: str | None = None,
) -> KnowledgeBase:
    """The knowledge base, kept parsed and checked under `<cache dir>/knowledge` between runs; with
    `harvested`, also the changes generated from the shipped harvest (`--harvested`); with
    `harvest`, set to harvest the releases past the shipped harvest from `index_url` (`--harvest`),
    each kept under `<cache dir>/harvest`."""
    from auditor.cachefiles import default_cache_dir
    from auditor.knowledge.base import KnowledgeBase

    root = None if no_cache else (cache_dir or default_cache_dir())
    fly = None
    if harvest:
        from auditor.harvest.fly import FlySettings
        from auditor.harvest.index import DEFAULT_INDEX

        fly = FlySettings(index_url or DEFAULT_INDEX, None if root is None else root / "harvest")
    return KnowledgeBase.load(cache_dir=root, harvested=harvested, fly=fly)


def scan_options(cache_dir: Path | None, no_cache: bool, watched_format: bool) -> ScanOptions:
    """The scan's cache (`<cache dir>/scan`) and a progress bar when a person watches a text report."""
    from auditor.cachefiles import default_cache_dir  # one cache root for scans and probes
    from auditor.progress import SILENT, RichProgressBar
    from auditor.scan.project import ScanOptions

    directory = None if no_cache else (cache_dir or default_cache_dir()) / "scan"
    watched = sys.stderr.isatty() and watched_format
    return ScanOptions(cache_dir=directory, progress=RichProgressBar() if watched else SILENT)


def progress_reporter() -> Reporter:
    """Progress of the probes' steps on stderr: a spinner per step on a terminal, a line per step
    elsewhere (CI logs), so that minutes of provisioning are never silent."""
    from auditor.progress import LineReporter, RichReporter

    return RichReporter() if sys.stderr.isatty() else LineReporter(sys.stderr)


@dataclass(frozen=True)
class Provisioning:
    """The probe options of `probe`, `compare --probe`, `scan --probe`, `fix --probe` and the
    Action, as given (cli/provision.py declares them)."""

    python_old: str | None = None
    python_new: str | None = None
    env_old: str | None = None
    env_new: str | None = None
    index_url: str | None = None
    extra_index_url: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    torch_index: str | None = None  # '' for none; None: PyTorch's CPU index
    offline: bool = False
    no_pip_config: bool = False
    allow_cuda: bool = False
    installer: str = "auto"
    timeout: float = 900
    probe_timeout: float = 120
    memory_limit: float | None = (
        None  # MiB, for CPU and CUDA builds alike (0: no limit; None: the defaults)
    )


def probe_settings(
    given: Provisioning = Provisioning(), cache_dir: Path | None = None, no_cache: bool = False
) -> ProbeSettings:
    """The probe options as settings: pip's configuration under the options, PyTorch's CPU index
    unless `torch_index` says otherwise."""
    from auditor.fix.probes import rewrites
    from auditor.fix.shapes import shape_proof
    from auditor.probe import ProbeSettings, Sources

    sources = Sources(use_pip_config=not given.no_pip_config).with_options(
        index_url=given.index_url,
        extra_index_urls=given.extra_index_url,
        find_links=given.find_links,
        offline=given.offline,
    )
    if given.torch_index is not None:
        sources = replace(sources, torch_index=given.torch_index or None)
    limits = (
        {}
        if given.memory_limit is None
        else dict.fromkeys(
            ("memory_limit", "cuda_memory_limit"),
            int(given.memory_limit * (1 << 20)) if given.memory_limit else None,
        )
    )
    return ProbeSettings(
        cache_dir=cache_dir,
        use_cache=not no_cache,
        sources=sources,
        python_old=given.python_old,
        python_new=given.python_new,
        env_old=given.env_old,
        env_new=given.env_new,
        timeout=given.timeout,
        probe_timeout=given.probe_timeout,
        installer=given.installer,
        allow_cuda=given.allow_cuda,
        rewrites=rewrites,
        shapes=shape_proof,
        **limits,
    )
