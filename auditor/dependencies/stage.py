"""The dependency stage of an audit: for each new lock of a bump that moves the torch family, the
requirements of its packages on the family checked, and the packages that call torch scanned."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from auditor.dependencies.audit import scan_dependencies
from auditor.dependencies.metadata import Index
from auditor.dependencies.reader import Reader
from auditor.dependencies.requirements import check_requirements
from auditor.harvest.index import DEFAULT_INDEX
from auditor.knowledge.entry import SpecChange
from auditor.lockfiles.interface import TORCH_FAMILY
from auditor.models import EnvironmentFinding, InDependency, Lock, Transition
from auditor.scan.config import ScanConfig
from auditor.scan.discover import discover
from auditor.scan.project import ScanOptions


@dataclass(frozen=True, slots=True)
class DependencySettings:
    enabled: bool = True
    index_url: str | None = None  # None: PyPI's
    site_packages: Path | None = None
    cache: Path | None = None  # the cache root; None: a temporary folder for the run


@dataclass(frozen=True, slots=True)
class DependencyAudit:
    environment: tuple[EnvironmentFinding, ...] = ()  # requirements the new pins violate
    findings: tuple[InDependency, ...] = ()  # calls in dependencies that the crossed changes touch
    unread: tuple[str, ...] = ()  # "name version: why", one per package not read
    read: int = 0  # packages whose requirements were read
    scanned: tuple[str, ...] = ()  # "name version" of each dependency scanned


NOTHING = DependencyAudit()


def audit_dependencies(
    locks: Sequence[tuple[str, Lock]],
    transitions: Iterable[Transition],
    changes: Sequence[SpecChange],
    settings: DependencySettings,
    project: Path | None = None,
    config: ScanConfig | None = None,
    options: ScanOptions | None = None,
) -> DependencyAudit:
    """`locks`: each new lock with the path it is reported under; `changes`: those the bump
    crosses (their torch-family ones are looked for in the dependencies)."""
    if (
        not settings.enabled
        or not locks
        or not any(t.package in TORCH_FAMILY and t.new is not None for t in transitions)
    ):
        return NOTHING
    if settings.cache is not None:
        return _audit(locks, changes, settings, settings.cache, project, config, options)
    with tempfile.TemporaryDirectory(prefix="auditor-dependencies-") as scratch:
        return _audit(locks, changes, settings, Path(scratch), project, config, options)


def _audit(
    locks: Sequence[tuple[str, Lock]],
    changes: Sequence[SpecChange],
    settings: DependencySettings,
    cache: Path,
    project: Path | None,
    config: ScanConfig | None,
    options: ScanOptions | None,
) -> DependencyAudit:
    reader = Reader(
        Index(settings.index_url or DEFAULT_INDEX, cache), cache, settings.site_packages
    )
    family_changes = [c for c in changes if c.package in TORCH_FAMILY]
    files = _project_files(project, config)
    environment: list[EnvironmentFinding] = []
    found: list[InDependency] = []
    unread: list[str] = []
    scanned: list[str] = []
    read = 0
    for path, lock in locks:
        checked = check_requirements(lock.pins, reader, path)
        environment += checked.findings
        unread += checked.unread
        read += checked.read
        if family_changes:
            scan = scan_dependencies(lock.pins, reader, family_changes, files, options)
            found += scan.findings
            unread += scan.unread
            scanned += scan.scanned
    return DependencyAudit(
        tuple(dict.fromkeys(environment)),
        tuple(dict.fromkeys(found)),
        tuple(sorted(set(unread))),
        read,
        tuple(dict.fromkeys(scanned)),
    )


def _project_files(project: Path | None, config: ScanConfig | None) -> list[tuple[str, Path]]:
    if project is None:
        return []
    found = discover(project, config)
    return list(zip(found.relatives, found.files))  # scripts and notebooks
