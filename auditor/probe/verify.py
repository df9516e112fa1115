"""`kb verify`: does each probe show, on the installed version, what its entry claims?"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from packaging.version import Version

from auditor.knowledge.entry import SpecChange
from auditor.models import FixCheck
from auditor.probe.fixprobe import ProbeRewrite, Rewrites, check_on_one, probe_id
from auditor.probe.runner import DEFAULT_MEMORY_LIMIT, ProbeResult, run_batch


@dataclass(frozen=True, slots=True)
class Verdict:
    id: str
    status: Literal["pass", "fail", "skip", "error"]
    expected: str | None
    observed: str | None
    fixes: tuple[FixCheck, ...] = ()  # the entry's fix probes on this version

    @property
    def failed(self) -> bool:
        """The probe disagrees with the entry, or a fix probe failed (a fix whose probe cannot
        be rewritten fails too, unless the fix says `probe = false`)."""
        return self.status == "fail" or any(f.status in ("failed", "error") for f in self.fixes)


@dataclass(frozen=True, slots=True)
class Verification:
    package_versions: dict[str, str | None]
    python: str
    results: tuple[Verdict, ...]

    @property
    def failed(self) -> bool:
        return any(v.failed for v in self.results)


def verify(
    entries: Iterable[SpecChange],
    python: str | None = None,
    timeout: float = 600,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    rewrites: Rewrites | None = None,
) -> Verification:
    """Every runnable probe of `entries` run on the installed packages and judged; with
    `rewrites` (`auditor.fix.probes.rewrites`), each entry's fix probes too."""
    entries = [e for e in entries]
    packages = sorted(
        {e.package for e in entries} | {r for e in entries if e.probe for r in e.probe.requires}
    )
    runnable = {e.id: e.probe.code for e in entries if e.probe and not e.probe.skip}
    fixes = {e.id: rewrites(e) for e in entries if e.probe and not e.probe.skip} if rewrites else {}
    for entry_id, found in fixes.items():
        runnable.update({probe_id(entry_id, r.mode): r.code for r in found if r.code is not None})
    batch = run_batch(runnable, packages, python, timeout, memory_limit=memory_limit)
    verdicts = tuple(
        _with_fixes(
            judge(entry, batch.packages, batch.python, batch.results.get(entry.id)),
            entry,
            fixes.get(entry.id, ()),
            batch.packages,
            batch.results,
        )
        for entry in entries
    )
    return Verification(batch.packages, batch.python, verdicts)


def _with_fixes(
    verdict: Verdict,
    entry: SpecChange,
    found: tuple[ProbeRewrite, ...],
    packages: dict[str, str | None],
    results: dict[str, ProbeResult],
) -> Verdict:
    """The verdict with its fix probes judged, where the entry's own probe could be judged."""
    installed = packages.get(entry.package)
    if not found or verdict.status == "skip" or installed is None:
        return verdict
    version = Version(installed)
    checks = tuple(
        check_on_one(entry, r, version, results.get(probe_id(entry.id, r.mode))) for r in found
    )
    return replace(verdict, fixes=checks)


def judge(
    entry: SpecChange, packages: dict[str, str | None], python: str, result: ProbeResult | None
) -> Verdict:
    """What one probe's run says about its entry on these package versions."""
    installed = packages.get(entry.package)
    if entry.probe is None:
        return Verdict(entry.id, "skip", None, "no probe")
    if entry.probe.skip:
        return Verdict(entry.id, "skip", None, entry.probe.skip)
    if installed is None:
        return Verdict(entry.id, "skip", None, f"{entry.package} is not installed")
    unusable = entry.probe.unusable_on(Version(installed))
    if unusable:
        return Verdict(entry.id, "skip", None, unusable)
    if not entry.applies_to_python(python):
        return Verdict(entry.id, "skip", None, f"holds on Python {entry.python} only")
    active = entry.active(Version(installed))
    expected = entry.probe.expected(active)
    if result is None:
        return Verdict(entry.id, "error", expected, "the probe did not run")
    if result.error is not None and not result.output and not entry.probe.raises:
        return Verdict(entry.id, "error", expected, result.error)
    if result.observed != expected:
        return Verdict(entry.id, "fail", expected, result.observed)
    problem = entry.probe.signal_problem(active, result.warnings, result.observed)
    if problem is not None:
        shown = "; ".join(result.warnings) or "no warnings"
        return Verdict(entry.id, "fail", f"{expected} ({problem})", f"{result.observed} [{shown}]")
    return Verdict(entry.id, "pass", expected, result.observed)
