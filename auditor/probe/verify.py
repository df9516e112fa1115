"""`kb verify`: does each probe show, on the installed version, what its entry claims?"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from packaging.version import Version

from auditor.models import SpecChange
from auditor.probe.runner import DEFAULT_MEMORY_LIMIT, ProbeResult, run_batch


@dataclass(frozen=True, slots=True)
class Verdict:
    id: str
    status: Literal["pass", "fail", "skip", "error"]
    expected: str | None
    observed: str | None


@dataclass(frozen=True, slots=True)
class Verification:
    package_versions: dict[str, str | None]
    python: str
    results: tuple[Verdict, ...]

    @property
    def failed(self) -> bool:
        return any(v.status == "fail" for v in self.results)


def verify(
    entries: Iterable[SpecChange],
    python: str | None = None,
    timeout: float = 600,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
) -> Verification:
    entries = [e for e in entries]
    packages = sorted({e.package for e in entries} | {r for e in entries if e.probe for r in e.probe.requires})
    runnable = {e.id: e.probe.code for e in entries if e.probe and not e.probe.skip}
    batch = run_batch(runnable, packages, python, timeout, memory_limit=memory_limit)
    verdicts = tuple(judge(entry, batch.packages, batch.python, batch.results.get(entry.id)) for entry in entries)
    return Verification(batch.packages, batch.python, verdicts)


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
