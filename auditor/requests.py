"""What a command asks the pipeline for: one frozen request per run, built from the options.

The command line parses its options into these and renders what the pipeline returns; the
pipeline reads nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.models import Gate
from auditor.scan.project import ScanOptions

if TYPE_CHECKING:
    from auditor.dependencies.stage import DependencySettings
    from auditor.probe import ProbeSettings, Reporter


@dataclass(frozen=True)
class LockPair:
    """Two lockfiles: before and after the bump, each optionally read as a named format."""

    old: Path
    new: Path
    old_format: str | None = None
    new_format: str | None = None


@dataclass(frozen=True)
class GitRange:
    """Every lockfile changed between two commits of `repo` (head None: the working tree)."""

    repo: Path
    base: str
    head: str | None
    patterns: tuple[str, ...] = ()
    old_format: str | None = None
    new_format: str | None = None


@dataclass(frozen=True)
class VersionPair:
    """A transition given by its versions instead of locks."""

    package: str
    old: str
    new: str


@dataclass(frozen=True)
class EnvironmentChoice:
    """Which of a lock's variants count: the project's Python, one platform, resolved ranges."""

    python: str | None = None
    platform: str | None = None
    resolve: bool = False


@dataclass(frozen=True)
class Probing:
    """`--probe`: how environments are provisioned, and where progress goes."""

    settings: ProbeSettings
    reporter: Reporter


@dataclass(frozen=True)
class AuditRequest:
    """compare, compare --git and scan: inputs, the project scanned, the environment chosen, the
    scan's settings (config file, cache), probes, and what counts for the exit code."""

    inputs: LockPair | GitRange | VersionPair
    project: Path | None
    environment: EnvironmentChoice
    config: Path | None
    scan: ScanOptions
    probe: Probing | None
    gate: Gate
    dependencies: DependencySettings | None = None  # how the new locks' dependencies are read (None: not read)
