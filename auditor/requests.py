"""What a command asks the pipeline for: one frozen request per run, built from the options.

The command line parses its options into these and renders what the pipeline returns; the
pipeline reads nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.fix.spec import FixMode
from auditor.knowledge.entry import Confidence
from auditor.models import Gate, Transition
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
    fallback: tuple[
        tuple[Transition, str | None], ...
    ] = ()  # moves named elsewhere (a bump PR), each with a note


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
    tolerant: bool = (
        False  # the Action: run only when changes are crossed; a probe that cannot run is a warning
    )


@dataclass(frozen=True)
class Fixes:
    """The rewrites a report carries, made by the pipeline once the audit is done (nothing is
    written): `rewrite`, of every call site at or above `min_confidence` (SARIF `fixes`, a fix
    commit, plan's counts); `suggest`, each change's own diff with the `auditor fix` command that
    makes it (Markdown), naming the project as `shown` and the locks compared (None: the versions)."""

    root: Path
    mode: FixMode = "keep-old"
    min_confidence: Confidence = "high"
    rewrite: bool = False
    suggest: bool = False
    shown: str = ""
    locks: tuple[str, str] | None = None


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
    dependencies: DependencySettings | None = (
        None  # how the new locks' dependencies are read (None: not read)
    )
    fixes: Fixes | None = None  # the rewrites the report carries (None: none)


@dataclass(frozen=True)
class FixRequest:
    """`auditor fix`: the audit of the project `root`, then its rewrite in `mode` of the call sites
    at or above `min_confidence`; `proof` runs each rewritten site on both versions first; `write`
    writes the files (`force`: even over uncommitted changes)."""

    audit: AuditRequest
    root: Path
    mode: FixMode
    min_confidence: Confidence
    proof: Probing | None = None
    write: bool = False
    force: bool = False


@dataclass(frozen=True)
class PlanRequest:
    """`auditor plan`: the project, the package, and its current version as `lock` pins it or as
    `from_version` says (one of the two)."""

    project: Path
    package: str
    lock: Path | None
    from_version: str | None
    environment: EnvironmentChoice
    config: Path | None
    scan: ScanOptions
