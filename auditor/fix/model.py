"""What `auditor fix` produces: per finding, the rewrite applied or the reason it was left alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from auditor.fix.spec import FixMode, Transform
from auditor.models import AuditResult, Finding, FixCheck, ProbeRun

# Why a finding was left alone, as a stable word for JSON; `reason` says it in a sentence.
# "no-fix" alone means the change has no mechanical fix (for this shape, in this mode): the
# other kinds mean a fix exists but this call site does not allow it.
LeftAloneKind = Literal[
    "no-fix",
    "below-confidence",
    "requires",
    "keyword-given",
    "kwargs-spread",
    "args-spread",
    "missing-argument",
    "not-found",
    "unparsable",
    "import-form",
    "overlap",
    "positional",
    "double-evaluation",
    "unknown-value",
    "unproven-shape",
]


@dataclass(frozen=True, slots=True)
class Applied:
    finding: Finding
    transform: Transform


@dataclass(frozen=True, slots=True)
class LeftAlone:
    finding: Finding
    kind: LeftAloneKind
    reason: str


@dataclass(frozen=True, slots=True)
class Proof:
    """A rewritten literal-only site run on both versions (`fix --probe`)."""

    finding: Finding
    status: Literal["proven", "differs"]
    old: ProbeRun  # keep-old: the original on the old version; adopt-new: the rewrite on it
    new: ProbeRun  # the rewrite on the new version


@dataclass(frozen=True, slots=True)
class EntryCheck:
    """An applied entry's fix proven on both versions (`fix --probe`): its probe rewritten and
    every call shape its table claims (`check.shapes`)."""

    change: str
    check: FixCheck


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One source (a module, or one notebook cell) rewritten: `new_source` equals the source
    given when nothing was applied."""

    new_source: str
    applied: tuple[Applied, ...]
    left_alone: tuple[LeftAlone, ...]


@dataclass(frozen=True, slots=True)
class FileRewrite:
    """A file of the project: its text before and after (a notebook's raw JSON, only the edited
    cells' sources changed)."""

    path: str  # relative to the project root, forward slashes
    old_text: str
    new_text: str
    applied: tuple[Applied, ...]
    left_alone: tuple[LeftAlone, ...]
    cells: tuple[
        tuple[int, str, str], ...
    ] = ()  # notebooks: (cell, old source, new source) per edited cell

    @property
    def changed(self) -> bool:
        return self.new_text != self.old_text


@dataclass(frozen=True, slots=True)
class FixResult:
    audit: AuditResult  # the scan the fix was planned on
    mode: FixMode
    min_confidence: str
    files: tuple[FileRewrite, ...]  # every file holding a finding, changed or not
    notes: tuple[str, ...] = ()
    proofs: tuple[
        Proof, ...
    ] = ()  # with --probe: the rewritten literal-only sites run on both versions
    checks: tuple[EntryCheck, ...] = ()  # with --probe: the applied entries' fixes, per shape

    @property
    def applied(self) -> tuple[Applied, ...]:
        return tuple(a for f in self.files for a in f.applied)

    @property
    def left_alone(self) -> tuple[LeftAlone, ...]:
        return tuple(x for f in self.files for x in f.left_alone)

    @property
    def changed(self) -> tuple[FileRewrite, ...]:
        return tuple(f for f in self.files if f.changed)
