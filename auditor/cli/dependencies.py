"""The options of the dependency audit (docs/dependencies.md), shared by compare and github."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from auditor.dependencies.stage import DependencySettings

NoDependenciesFlag = Annotated[
    bool,
    typer.Option(
        "--no-dependencies",
        envvar="AUDITOR_NO_DEPENDENCIES",
        help="Do not read the new lock's dependencies from the package index (their requirements on torch, "
        "and the calls to torch in those that depend on it).",
    ),
]
SitePackagesOption = Annotated[
    Path | None,
    typer.Option(
        "--site-packages",
        metavar="DIR",
        help="An environment's site-packages to read git and local dependencies from (the index has none of them).",
    ),
]
DependenciesSwitch = Annotated[
    bool,
    typer.Option(
        "--dependencies/--no-dependencies",
        envvar="AUDITOR_DEPENDENCIES",
        help="Read the new lock's dependencies from the index (their requirements on torch, their calls to it).",
    ),
]


def dependency_settings(
    no_dependencies: bool,
    site_packages: Path | None,
    index_url: str | None,
    cache_dir: Path | None,
    no_cache: bool,
) -> DependencySettings:
    """How the new lock's dependencies are read."""
    from auditor.cachefiles import default_cache_dir
    from auditor.dependencies.stage import DependencySettings  # the index reader: only when asked

    return DependencySettings(
        enabled=not no_dependencies,
        index_url=index_url,
        site_packages=site_packages,
        cache=None if no_cache else (cache_dir or default_cache_dir()),
    )
