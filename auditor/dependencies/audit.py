"""The locked dependencies that call torch, scanned at their locked versions with the project's
knowledge and scanner, each finding with the project's ways into it.

A dependency is read when its metadata requires a torch-family package (`Requires-Dist`, under any
marker or extra): its wheel's sources are unpacked into the cache (`sources`) and scanned as a
project. Each finding keeps the package, its version and the path inside the package; `via` names
the project's calls that reach the affected line (`reach`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.dependencies.metadata import Index, Unread
from auditor.dependencies.reach import Package, Way, ways_in
from auditor.dependencies.sources import sources
from auditor.lockfiles.interface import TORCH_FAMILY
from auditor.models import Finding, Pin, SpecChange
from auditor.scan.config import ScanConfig
from auditor.scan.project import ScanOptions
from auditor.scan.scanner import scan_project


@dataclass(frozen=True, slots=True)
class InDependency:
    package: str
    version: Version
    finding: Finding  # its path is inside the package
    via: tuple[Way, ...]


@dataclass(frozen=True, slots=True)
class DependencyScan:
    findings: tuple[InDependency, ...]
    unread: tuple[str, ...]  # "name version: why"
    scanned: tuple[str, ...]  # "name version", each package read


def calls_torch(requires: Iterable[str]) -> bool:
    for line in requires:
        try:
            if canonicalize_name(Requirement(line).name) in TORCH_FAMILY:
                return True
        except InvalidRequirement:
            continue
    return False


def scan_dependencies(
    pins: Sequence[Pin], index: Index, cache: Path, changes: Sequence[SpecChange],
    project: Sequence[tuple[str, Path]] = (), options: ScanOptions | None = None,
) -> DependencyScan:
    """`project`: the project's files (relative path, file) whose calls may reach a finding."""
    found: list[InDependency] = []
    unread, scanned = [], []
    for pin in pins:
        if pin.version is None or pin.local or pin.name in TORCH_FAMILY:
            continue
        try:
            if not calls_torch(index.release(pin.name, pin.version).requires):
                continue
            tree = sources(index, pin.name, pin.version, cache)
        except Unread as exc:
            unread.append(f"{pin.name} {pin.version}: {exc}")
            continue
        scanned.append(f"{pin.name} {pin.version}")
        findings, _ = scan_project(tree, changes, ScanConfig(respect_gitignore=False), options or ScanOptions(workers=1))
        package = Package(tree)
        for finding in findings:
            holder = package.holding(finding.path, finding.line)
            ways = tuple(ways_in(project, package.reaching(holder))) if holder is not None else ()
            found.append(InDependency(pin.name, pin.version, finding, ways))
    return DependencyScan(tuple(found), tuple(sorted(unread)), tuple(scanned))
