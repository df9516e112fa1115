"""`kb verify`: does each probe show, on the installed version, what its entry claims?"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from packaging.version import Version

from auditor.models import SpecChange
from auditor.probe.runner import run_batch


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


def verify(entries: Iterable[SpecChange], python: str | None = None, timeout: float = 600) -> Verification:
    entries = [e for e in entries]
    packages = sorted({e.package for e in entries} | {r for e in entries if e.probe for r in e.probe.requires})
    runnable = {e.id: e.probe.code for e in entries if e.probe and not e.probe.skip}
    batch = run_batch(runnable, packages, python, timeout)
    verdicts = []
    for entry in entries:
        installed = batch.packages.get(entry.package)
        if entry.probe is None:
            verdicts.append(Verdict(entry.id, "skip", None, "no probe"))
            continue
        if entry.probe.skip:
            verdicts.append(Verdict(entry.id, "skip", None, entry.probe.skip))
            continue
        if installed is None:
            verdicts.append(Verdict(entry.id, "skip", None, f"{entry.package} is not installed"))
            continue
        unusable = entry.probe.unusable_on(Version(installed))
        if unusable:
            verdicts.append(Verdict(entry.id, "skip", None, unusable))
            continue
        if not entry.applies_to_python(batch.python):
            verdicts.append(Verdict(entry.id, "skip", None, f"holds on Python {entry.python} only"))
            continue
        expected = entry.probe.expected(entry.active(Version(installed)))
        result = batch.results[entry.id]
        if result.error is not None and not result.output:
            verdicts.append(Verdict(entry.id, "error", expected, result.error))
            continue
        status: Literal["pass", "fail"] = "pass" if result.observed == expected else "fail"
        verdicts.append(Verdict(entry.id, status, expected, result.observed))
    return Verification(batch.packages, batch.python, tuple(verdicts))
