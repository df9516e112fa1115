"""Frozen data shared by the stages: lock pins, transitions, spec changes, findings, results."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from packaging.version import Version

from auditor.errors import redact
from auditor.fix.spec import FixMode
from auditor.knowledge.entry import Confidence, Severity, SpecChange, release

Verdict = Literal["pass", "unchecked", "fail"]


# The presence tables' format (`knowledge/<package>/harvest/presence.json`), written by
# `auditor.harvest.presence` and read by `auditor.knowledge.presence`: per name, one state per
# release read, from it on.
PRESENT, ABSENT, UNKNOWN = "+", "-", "?"
PRESENCE_FILE = "presence.json"


def rank(level: str) -> int:
    """Order of a severity or confidence level; 0 for `none`."""
    return {"none": 0, "low": 1, "medium": 2, "high": 3}[level]


# --- locks -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pin:
    """One package as a lock states it. `version` is None when the input does not pin it."""

    name: str  # PEP 503 canonical
    version: Version | None
    marker: str | None = None
    source: str | None = None
    groups: tuple[str, ...] = ()
    line: int | None = None
    specifier: str | None = None  # the range an unpinned input asks for
    platform: str | None = (
        None  # the conda platform (linux-64, osx-arm64) a per-platform lock pins for
    )
    build: str | None = (
        None  # a conda build string (py3.10_cuda11.8_cudnn8.7.0_0): tells CUDA or CPU
    )
    # a path or `file:` requirement (`-e .`, `./libs/x`): its name only where the input states it
    # ("" otherwise), its version only where a file does (an archive's name, pip freeze's header)
    local: bool = False
    wheels: tuple[
        str, ...
    ] = ()  # the wheel file names the lock lists for this pin, where it lists them
    requires: tuple[str, ...] = ()  # the names this pin depends on, where the lock says

    def __post_init__(self) -> None:  # a source URL's credentials never reach a report
        if self.source is not None:
            object.__setattr__(self, "source", redact(self.source))


@dataclass(frozen=True, slots=True)
class Lock:
    path: str
    format: str
    pins: tuple[Pin, ...]
    python: str | None = None  # requires-python or interpreter the lock was made for, when known
    notes: tuple[str, ...] = ()  # what the reader did beyond parsing (resolved ranges, ...)
    markers: bool = True  # False: the format records no marker per pin (poetry.lock before 2.1)
    # sets of extras (and dependency groups) of which an install activates at most one, spelled
    # as the markers spell them (uv: `extra-6-myproj-cpu`, `group-6-myproj-dev`)
    conflicts: tuple[frozenset[str], ...] = ()
    # extras that activate others: the project's `cpu` extra asking for its library's `cpu` extra
    activates: tuple[tuple[str, frozenset[str]], ...] = ()

    def unpinned(self) -> tuple[Pin, ...]:
        """Registry packages with no version: local requirements have none to pin."""
        return tuple(pin for pin in self.pins if pin.version is None and not pin.local)


# --- transitions -------------------------------------------------------------------------------

Direction = Literal["upgrade", "downgrade", "added", "removed", "unpinned", "unchanged"]


@dataclass(frozen=True, slots=True)
class Transition:
    package: str
    old: Version | None
    new: Version | None
    environment: str | None = (
        None  # the marker (or conda platform) of the pin, as the lock writes it
    )
    unpinned: bool = False  # the side without a version still lists the package, with no pin
    variant: str | None = (
        None  # the installs it covers, briefly ("linux x86_64, extra rocm"); None: all
    )

    @property
    def direction(self) -> Direction:
        if self.old is None:
            return "added" if self.new is not None else "unchanged"
        if self.new is None:
            return "unpinned" if self.unpinned else "removed"
        old, new = release(self.old), release(self.new)
        if new > old:
            return "upgrade"
        if new < old:
            return "downgrade"
        return "unchanged"


@dataclass(frozen=True, slots=True)
class EnvironmentFinding:
    """A compatibility problem of the bump itself, not of a line of code."""

    kind: str
    severity: Severity
    message: str
    package: str | None = None
    path: str | None = None  # the lock whose lines show it, and the line
    line: int | None = None
    change: str | None = None  # the knowledge entry this finding states for this lock, if one does
    gates: bool = True  # False: listed, never failing the check (what a bump fixes, not breaks)


# --- knowledge ---------------------------------------------------------------------------------


# What a finding's matcher saw (Finding.shape) and what a transform rewrites (Transform.on).
Shape = Literal[
    "call",
    "method",
    "operator",
    "import",
    "attribute",
    "assign",
    "class",
    "decorator",
    "partial",
    "lookup",
]


# --- findings and results ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    change: str
    symbol: str
    path: str  # relative to the project root, forward slashes
    line: int  # 1-based; inside the cell for notebooks
    column: int  # 1-based
    cell: int | None
    confidence: Confidence
    message: str
    snippet: str
    stages: tuple[
        str, ...
    ] = ()  # earlier stages of the same move crossed together, merged into this one
    shape: Shape | None = (
        None  # what the matcher saw here (a call, a method call, `//`, ...): what `fix` rewrites
    )
    # the findings of other crossed changes at the same call site, folded into this one (`findings.one_per_site`)
    also: tuple[Finding, ...] = ()
    vendored: bool = False  # under a vendored folder (`third_party/`, ...): reported apart, not gating by default
    fix_note: str | None = (
        None  # what the composed fixes of this site trade, where one's rewrite meets another change
    )

    def each(self) -> tuple[Finding, ...]:
        """This finding and those folded into it, each of one change (what `fix` rewrites)."""
        return (replace(self, also=(), fix_note=None), *self.also)


@dataclass(frozen=True, slots=True)
class Way:
    """A project call that reaches an affected line of a dependency, and the dependency's functions
    between (dotted names, from the one the project calls to the one holding the line)."""

    path: str  # the project's file, relative to its root
    line: int  # 1-based; inside the cell for notebooks
    chain: tuple[str, ...]
    cell: int | None = None

    @property
    def where(self) -> str:
        """`path:line`, or `path cell N, line L` in a notebook."""
        return (
            f"{self.path}:{self.line}"
            if self.cell is None
            else f"{self.path} cell {self.cell}, line {self.line}"
        )


@dataclass(frozen=True, slots=True)
class InDependency:
    """A call site inside a locked dependency that a crossed change touches."""

    package: str
    version: Version
    finding: Finding  # its path is inside the package
    via: tuple[Way, ...] = ()  # the project's ways into it, where the source shows them
    fixed_in: Version | None = None  # the first later release without this call (None: none found)
    latest: Version | None = None  # the newest release read, when later ones were


@dataclass(frozen=True, slots=True)
class GoodNews:
    """A crossed change that only helps this code: a warning ends, an API becomes public.
    `sites` are the places that use what it touches, where a workaround may now go."""

    change: SpecChange
    sites: tuple[Finding, ...] = ()

    @property
    def message(self) -> str:
        c = self.change
        if c.kind == "made-public":
            return f"{c.title} ({c.package} {c.introduced}): you may use the public name and drop workarounds for the private one."
        if c.kind == "deprecated":
            return f"{c.title} ({c.package} {c.introduced}): the warning ends in {c.until}; you may drop the workaround."
        return f"{c.title} ({c.package} {c.introduced}): you may drop the workaround."


# What a skipped entry stands for: a whole file not read ("file"; "syntax-error" when it does not
# parse), a folder not read (an environment, a git-ignored or excluded folder: listed once, not
# file by file), a file not read because its syntax is newer than the tool's Python
# ("newer-syntax": no verdict is green with one), or a note on a file that was read (a notebook
# cell left out, an ignore comment naming no entry).
SkipKind = Literal["file", "folder", "syntax-error", "newer-syntax", "note"]


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str
    kind: SkipKind = "file"

    @property
    def unread(self) -> bool:
        """Whether the entry is a file or folder that was not read at all."""
        return self.kind != "note"


@dataclass(frozen=True, slots=True)
class ProbeRun:
    version: str
    output: str
    python: str | None = None


@dataclass(frozen=True, slots=True)
class ShapeRun:
    """One call shape a `[fix]` table claims, proven on real builds (`auditor.fix.shapes`): the
    shape as written, its rewrite, and what the original gave on the old build and the rewrite
    on the new one ("ok", the error's first line, or None when the call was not reached).
    ran: the rewrite gave what the original gave; raised: the rewrite raised on the new build
    where the original ran (a failed proof); differs: another outcome (the original raised on
    the old build, or the rewrite raised the error the original raises on the new one);
    unrun: the original ran on neither build, nothing to hold the rewrite to."""

    call: str
    rewritten: str
    old: str | None
    new: str | None
    status: Literal["ran", "raised", "differs", "unrun"]


@dataclass(frozen=True, slots=True)
class FixCheck:
    """A fix probe: the entry's probe rewritten by one mode of its `[fix]` and run.
    verified: keep-old printed on the new version what the original printed on the old one, or
    adopt-new printed the same on both; ran: adopt-new ran on the one version `kb verify` has."""

    mode: FixMode
    status: Literal["verified", "ran", "failed", "skipped", "error"]
    versions: tuple[str, ...] = ()  # the package versions it was run on (old, new; or the one)
    outputs: tuple[str, ...] = ()  # what was compared, in the order of `versions`
    reason: str | None = None
    shapes: tuple[ShapeRun, ...] = ()  # every call shape the table claims, run (auditor probe)

    def summary(self) -> str:
        """One line for reports: "keep-old verified on 1.12.1 / 1.13.0"."""
        line = (
            f"{self.mode} {self.status} on {' / '.join(self.versions)}"
            if self.versions
            else f"{self.mode} {self.status}"
        )
        return f"{line}: {self.reason}" if self.reason and self.status != "verified" else line


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    change: str
    status: Literal["confirmed", "not-reproduced", "error", "skipped"]
    old: ProbeRun | None = None
    new: ProbeRun | None = None
    reason: str | None = None
    fixes: tuple[FixCheck, ...] = ()  # the entry's fix probes on the same two versions


@dataclass(frozen=True, slots=True)
class Gate:
    """Which findings count for the exit code: at or above `severity` (None: none counts) and
    `confidence`; `warns` findings only with `warnings`; vendored code only with `vendored`."""

    severity: str | None = "low"
    confidence: str = "medium"
    warnings: bool = False
    vendored: bool = False

    def counts(self, finding: Finding, change: SpecChange) -> bool:
        """Whether this one change's finding counts (not the ones folded into it)."""
        return (
            self.severity is not None
            and rank(change.severity) >= rank(self.severity)
            and rank(finding.confidence) >= rank(self.confidence)
            and (self.warnings or change.consequence != "warns")
            and (self.vendored or not finding.vendored)
        )


@dataclass(frozen=True, slots=True)
class AuditResult:
    transitions: tuple[Transition, ...]
    changes: tuple[SpecChange, ...]
    findings: tuple[Finding, ...]
    environment: tuple[EnvironmentFinding, ...] = ()
    probes: tuple[ProbeOutcome, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()  # what was done beyond reading the inputs (ranges resolved to pins)
    good_news: tuple[
        GoodNews, ...
    ] = ()  # crossed the harmless way: never a finding, never an exit code
    horizon: tuple[
        tuple[str, Version], ...
    ] = ()  # per package, the newest release the knowledge reviewed
    gate: Gate = field(
        default_factory=Gate
    )  # what counts for the exit code (the command's options)
    # what the audit crossed and did not check (generated changes, a package with nothing to compare
    # with), each also a note: a verdict is never a pass because of them
    unchecked: tuple[str, ...] = ()
    dependencies: tuple[
        InDependency, ...
    ] = ()  # calls in the locked dependencies the changes touch
    dependencies_read: tuple[str, ...] = ()  # "name version" of each dependency scanned
    requirements_read: int = 0  # locked packages whose requirements on the torch family were read

    def change(self, change_id: str) -> SpecChange:
        return next(c for c in self.changes if c.id == change_id)

    def gates(self, finding: Finding) -> bool:
        """Whether the finding (or one folded into it) counts for the exit code under `gate`."""
        return any(self.gate.counts(f, self.change(f.change)) for f in finding.each())

    def gating(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if self.gates(f))

    def gates_dependency(self, found: InDependency) -> bool:
        """A call in a dependency counts where the project is seen to reach it."""
        return bool(found.via) and self.gate.counts(
            found.finding, self.change(found.finding.change)
        )

    def fails(self) -> bool:
        """Whether the exit code fails: a gating finding, or an environment item at or above
        the gate's severity."""
        if self.gate.severity is None:
            return False
        return (
            bool(self.gating())
            or any(self.gates_dependency(d) for d in self.dependencies)
            or bool(self.gating_environment())
        )

    def gating_environment(self) -> tuple[EnvironmentFinding, ...]:
        """The environment items that fail the check: at or above the gate's severity, and not
        listed as never gating."""
        if self.gate.severity is None:
            return ()
        return tuple(
            e for e in self.environment if e.gates and rank(e.severity) >= rank(self.gate.severity)
        )

    def verdict(self) -> Verdict:
        """`fail`: the exit code fails; `unchecked`: it does not, but something crossed was not
        checked (a cause in `unchecked`, or a file of the project not read); `pass`: neither."""
        if self.fails():
            return "fail"
        unread_files = any(s.unread and s.kind != "folder" for s in self.skipped)
        return "unchecked" if self.unchecked or unread_files else "pass"

    def counted(self, confidence: str = "low") -> tuple[Finding, ...]:
        """The findings of at least `confidence`: those an exit code, label or comment counts."""
        return tuple(f for f in self.findings if rank(f.confidence) >= rank(confidence))

    def unread(self) -> tuple[int, int]:
        """How many files, and how many folders, the scan did not read at all (each is listed
        under skipped with why)."""
        paths = {(s.path, s.kind == "folder") for s in self.skipped if s.unread}
        folders = sum(folder for _, folder in paths)
        return len(paths) - folders, folders

    def worst_severity(self, confidence: str = "low") -> str:
        """The highest severity among findings of at least `confidence` and environment
        findings, or `none`."""
        levels = [self.change(f.change).severity for f in self.counted(confidence)]
        levels += [e.severity for e in self.environment]
        return max(levels, key=rank, default="none")
