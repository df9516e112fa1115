"""`auditor plan`: for a project at one version of a package, what each later release up to
the knowledge base's horizon would do to its code: call sites that break, change results, only
warn; how many a mechanical fix rewrites; the environment changes that come with the release."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from auditor import pipeline
from auditor.errors import UsageError
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import CONSEQUENCES, Consequence, SpecChange, release
from auditor.lockfiles import read_lock
from auditor.models import Gate
from auditor.report.summary import call_sites, section
from auditor.requests import AuditRequest, Fixes, PlanRequest, VersionPair


@dataclass(frozen=True, slots=True)
class Row:
    """A bump from the current version to `release`."""

    release: Version
    crossed: int  # spec changes crossed
    sites: tuple[
        tuple[Consequence, int], ...
    ]  # confident call sites outside vendored code, per consequence
    gating: int  # call sites that would fail the exit code (default options)
    fixable: int  # call sites `auditor fix --keep-old --min-confidence medium` rewrites
    low: int  # low-confidence call sites
    environment: tuple[
        SpecChange, ...
    ]  # environment changes this release brings (since the row before)

    def count(self, consequence: Consequence) -> int:
        return dict(self.sites).get(consequence, 0)


@dataclass(frozen=True, slots=True)
class Plan:
    package: str
    current: Version
    horizon: Version | None
    rows: tuple[Row, ...]
    notes: tuple[str, ...]


def current_version(lock: Path, package: str) -> Version:
    """The version `lock` pins `package` to: one, or an error naming the lock."""
    pinned = {
        p.version
        for p in read_lock(lock).pins
        if pipeline.package_name(p.name) == package and p.version
    }
    if not pinned:
        raise UsageError(f"pins no version of {package}: give --from", lock)
    if len(pinned) > 1:
        shown = ", ".join(sorted(str(v) for v in pinned))
        raise UsageError(f"pins {package} at several versions ({shown}): give --from", lock)
    return pinned.pop()


def later_releases(kb: KnowledgeBase, package: str, current: Version) -> tuple[Version, ...]:
    """The releases after `current`, up to the horizon, in which the knowledge base records a
    change (curated or generated), and the horizon itself."""
    horizon = kb.horizon.get(package)
    known = {e.introduced for e in kb.entries if e.package == package}
    known |= {g.introduced for g in kb.unloaded if g.package == package}
    known |= {horizon} if horizon is not None else set()
    return tuple(
        sorted(v for v in known if v > release(current) and (horizon is None or v <= horizon))
    )


def plan(request: PlanRequest, kb: KnowledgeBase) -> Plan:
    """Each later release audited as a bump from the current version, with the `keep-old` rewrite
    at medium confidence that counts what a fix takes care of."""
    from auditor.lockfiles.interface import parse_version

    package = pipeline.known_package(kb, request.package)
    pipeline.check_project(request.project)
    current = (
        current_version(request.lock, package)
        if request.lock is not None
        else parse_version(request.from_version or "", "--from")
    )
    rows: list[Row] = []
    notes: tuple[str, ...] = ()
    previous = release(current)
    fixes = Fixes(request.project, "keep-old", "medium", rewrite=True)
    for target in later_releases(kb, package, current):
        done = pipeline.run(
            AuditRequest(
                VersionPair(package, str(current), str(target)),
                request.project,
                request.environment,
                request.config,
                request.scan,
                None,
                Gate(),
                fixes=fixes,
            ),
            kb,
        )
        result = done.result
        counted = [f for f in result.findings if section(result, f) in ("confident", "warnings")]
        tiers = Counter(result.change(f.change).consequence for f in counted)
        rows.append(
            Row(
                release=target,
                crossed=len(result.changes),
                sites=tuple((c, tiers[c]) for c in CONSEQUENCES if tiers[c]),
                gating=call_sites(result.gating()),
                fixable=call_sites(a.finding for a in done.fixes.applied)
                if done.fixes is not None
                else 0,
                low=call_sites(f for f in result.findings if section(result, f) == "low"),
                environment=tuple(
                    c
                    for c in result.changes
                    if c.consequence == "environment" and previous < c.introduced <= target
                ),
            )
        )
        notes = result.notes
        previous = target
    return Plan(package, current, kb.horizon.get(package), tuple(rows), tuple(dict.fromkeys(notes)))
