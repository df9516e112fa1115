"""What every format counts and orders the same way.

A call site is a distinct place in the code (file, cell, line, column): one line hit by two
changes is one call site. Low-confidence findings stand apart: they are counted and shown
separately, collapsed to one line per change, and never ordered among the confident ones.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from auditor.knowledge.entry import CONSEQUENCES, Consequence, SpecChange
from auditor.models import AuditResult, Finding, InDependency, rank


def is_low(f: Finding) -> bool:
    return f.confidence == "low"


def call_sites(findings: Iterable[Finding]) -> int:
    """Distinct places in the code."""
    return len({(f.path, f.cell, f.line, f.column) for f in findings})


def short(text: str, limit: int = 60) -> str:
    """A name cut to `limit` characters (an environment a lock spells out can run long)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def files(findings: Iterable[Finding]) -> list[str]:
    return sorted({f.path for f in findings})


@dataclass(frozen=True, slots=True)
class Tally:
    """The counts every format states: confident call sites first, low-confidence ones apart."""

    call_sites: int
    files: int
    changes: int  # changes with at least one confident call site
    low_call_sites: int
    low_files: int
    low_changes: int  # changes with low-confidence call sites only
    gating: int = 0  # call sites that count for the exit code (`AuditResult.gate`)
    warnings: int = (
        0  # confident call sites whose consequence is only a warning, outside vendored folders
    )
    vendored: int = 0  # confident call sites in vendored folders


def tally(result: AuditResult) -> Tally:
    confident = [f for f in result.findings if not is_low(f)]
    low = [f for f in result.findings if is_low(f)]
    confident_changes = {each.change for f in confident for each in f.each()}
    return Tally(
        gating=call_sites(result.gating()),
        warnings=call_sites(f for f in confident if tier(result, f) == "warns" and not f.vendored),
        vendored=call_sites(f for f in confident if f.vendored),
        call_sites=call_sites(confident),
        files=len(files(confident)),
        changes=len(confident_changes),
        low_call_sites=call_sites(low),
        low_files=len(files(low)),
        low_changes=len({each.change for f in low for each in f.each()} - confident_changes),
    )


def not_read(result: AuditResult) -> str:
    """`3 files not read`, `1 file and 2 folders not read` (each listed under skipped), or ""."""
    unread_files, unread_folders = result.unread()
    parts = [
        f"{n} {word}{'' if n == 1 else 's'}"
        for n, word in ((unread_files, "file"), (unread_folders, "folder"))
        if n
    ]
    return f"{' and '.join(parts)} not read" if parts else ""


def tier(result: AuditResult, f: Finding) -> Consequence:
    """The consequence of the finding's leading change: the report's tier for it."""
    return result.change(f.change).consequence


@dataclass(frozen=True, slots=True)
class Group:
    change: SpecChange
    sites: tuple[Finding, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """The report's order: confident groups by consequence (breaks, changes results, environment),
    then severity, then the confidence of their sites; apart from them the groups that only warn,
    those in vendored code, and the low-confidence ones; crossed changes without a call site;
    stages folded into a later stage's findings."""

    confident: tuple[Group, ...]
    low: tuple[Group, ...]
    unused: tuple[SpecChange, ...]
    folded: dict[str, str]  # earlier stage id -> the change whose findings state it
    warnings: tuple[Group, ...] = ()
    vendored: tuple[Group, ...] = ()


def section(result: AuditResult, f: Finding) -> str:
    """Where a finding is listed: "low", "vendored", "warnings" or "confident"."""
    if is_low(f):
        return "low"
    if f.vendored:
        return "vendored"
    return "warnings" if tier(result, f) == "warns" else "confident"


def layout(result: AuditResult) -> Layout:
    parts: dict[str, dict[str, list[Finding]]] = {
        s: defaultdict(list) for s in ("confident", "low", "warnings", "vendored")
    }
    for f in result.findings:
        parts[section(result, f)][f.change].append(f)
    folded = {
        stage: f.change for site in result.findings for f in site.each() for stage in f.stages
    }

    def key(group: Group) -> tuple[object, ...]:
        c = group.change
        best = max((rank(f.confidence) for f in group.sites), default=0)
        return (
            CONSEQUENCES.index(c.consequence),
            -rank(c.severity),
            -best,
            c.package,
            c.introduced,
            c.id,
        )

    def groups(by_change: dict[str, list[Finding]]) -> tuple[Group, ...]:
        return tuple(
            sorted((Group(result.change(i), tuple(s)) for i, s in by_change.items()), key=key)
        )

    used = {f.change for site in result.findings for f in site.each()} | {
        e.change for e in result.environment if e.change
    }
    unused = tuple(
        sorted(
            (c for c in result.changes if c.id not in used and c.id not in folded),
            key=lambda c: (-rank(c.severity), c.package, c.introduced, c.id),
        )
    )
    return Layout(
        groups(parts["confident"]),
        groups(parts["low"]),
        unused,
        folded,
        groups(parts["warnings"]),
        groups(parts["vendored"]),
    )


def remedy(found: InDependency) -> str:
    """What to do about a call in a dependency."""
    if found.fixed_in is not None:
        return f"{found.package} {found.fixed_in} no longer has the call"
    newest = f" up to {found.latest}" if found.latest else ""
    return (
        f"no release of {found.package}{newest} drops it: keep the old behaviour where the project "
        f"calls in, or keep the torch pin"
    )


def clean_dependencies(result: AuditResult, quote: Callable[[str], str]) -> str | None:
    """The one line for locked dependencies read and found clean (read and clean is never left
    to look like not read): the packages scanned, or the requirements read; None when there are
    calls to list, or nothing was read. `quote`: the format's escaping of package names."""
    if result.dependencies:
        return None
    if result.dependencies_read:
        return (
            f"In the locked dependencies ({quote(', '.join(result.dependencies_read))}): "
            "no call the crossed changes touch."
        )
    if result.requirements_read and not any(
        e.kind == "requirement-violated" for e in result.environment
    ):
        return (
            f"In the locked dependencies: the requirements of {result.requirements_read} package(s) "
            "read; the new pins meet every one on the torch family."
        )
    return None
