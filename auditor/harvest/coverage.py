"""Where each shipped candidate stands: covered by a curated entry, generated, waived, or open."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from auditor.harvest.cxx import CxxStanding, standings
from auditor.harvest.generate import Open, matches, spec_change
from auditor.harvest.model import Candidate
from auditor.harvest.related import relate
from auditor.harvest.shipped import Waiver, read_candidates, read_waivers
from auditor.harvest.witness import Witness, oldest_release, witness
from auditor.knowledge.entry import SpecChange, Unloaded

STATES = ("covered", "generated", "waived", "open")
_WARNS = ("deprecation-begins", "warning-category-changed")


@dataclass(frozen=True, slots=True)
class Standing:
    candidate: Candidate
    state: str  # covered, generated, waived, open
    why: str  # the covering entry, the waiver's reason, or why no matcher is narrow enough


@dataclass(frozen=True, slots=True)
class Coverage:
    package: str
    standings: tuple[Standing, ...]
    witness: Witness | None = None  # the curated entries' releases against the candidates
    cxx: tuple[CxxStanding, ...] = ()  # the messages of the C++ libraries (`cxx`), reviewed or open

    def per_release(self) -> list[tuple[str, str, dict[str, int]]]:
        """(from, to, counts per state) for each release pair, oldest first."""
        pairs: dict[tuple[str, str], dict[str, int]] = {}
        for s in self.standings:
            counts = pairs.setdefault(
                (s.candidate.before, s.candidate.release), dict.fromkeys(STATES, 0)
            )
            counts[s.state] += 1
        return [(a, b, counts) for (a, b), counts in pairs.items()]

    def totals(self) -> dict[str, int]:
        return {state: sum(s.state == state for s in self.standings) for state in STATES}

    def newest(self) -> str | None:
        return max((s.candidate.release for s in self.standings), key=Version, default=None)

    def live(self, release: str) -> dict[str, str]:
        """The deprecation surface of `release`: each symbol a deprecation candidate up to it marks
        that has not ended by it (its `until`: the symbol, the parameter or the warning gone), with
        the state it stands in: `covered` when a curated entry covers one of its candidates,
        `waived` when waivers take them all, else `generated`, else `open`."""
        at = Version(release)
        states: dict[str, set[str]] = {}
        for s in self.standings:
            c = s.candidate
            if (
                c.kind in _WARNS
                and Version(c.release) <= at
                and (c.until is None or Version(c.until) > at)
            ):
                states.setdefault(c.symbol, set()).add(s.state)
        return {
            symbol: next(
                state for state in ("covered", "generated", "open", "waived") if state in found
            )
            for symbol, found in sorted(states.items())
        }


def stand(c: Candidate, covering: dict[str, str], waivers: list[Waiver]) -> Standing:
    if c.id in covering:
        return Standing(c, "covered", covering[c.id])
    if c.waived is not None:  # the harvest's own evidence: the reason names its file and line
        return Standing(c, "waived", c.waived)
    for w in waivers:
        if w.waives(c):
            return Standing(c, "waived", w.reason)
    found = matches(c)
    if isinstance(found, Open):
        return Standing(c, "open", found.reason)
    return Standing(c, "generated", "")


def coverage(
    knowledge: Path, package: str, entries: tuple[SpecChange, ...], witnessed: bool = False
) -> Coverage:
    """Where each candidate stands; with `witnessed`, also the curated entries' releases against
    the candidates and where each C++ message candidate stands (`kb coverage`; the loader's
    generated changes need neither)."""
    covering = {cid: e.id for e in entries for cid in e.covers}
    waivers = read_waivers(knowledge, package)
    candidates = relate(read_candidates(knowledge, package))
    found = (
        witness(knowledge, package, entries, candidates, oldest_release(candidates))
        if witnessed
        else None
    )
    cxx = standings(knowledge, package, {e.id for e in entries}) if witnessed else ()
    return Coverage(package, tuple(stand(c, covering, waivers) for c in candidates), found, cxx)


def generated_candidates(knowledge: Path, entries: tuple[SpecChange, ...]) -> tuple[Candidate, ...]:
    """The shipped candidates that no curated entry covers and no waiver takes, and whose
    evidence allows a narrow matcher, for every package with a harvest."""
    packages = sorted(p.parent.name for p in knowledge.glob("*/harvest") if p.is_dir())
    return tuple(
        s.candidate
        for package in packages
        for s in coverage(knowledge, package, entries).standings
        if s.state == "generated"
    )


def changes_of(candidates: Iterable[Candidate]) -> tuple[SpecChange, ...]:
    """The spec changes generated from candidates that allow a narrow matcher."""
    out: list[SpecChange] = []
    for c in candidates:
        found = matches(c)
        assert not isinstance(found, Open)
        out.append(spec_change(c, found))
    return tuple(out)


def generated_changes(knowledge: Path, entries: tuple[SpecChange, ...]) -> tuple[SpecChange, ...]:
    """The spec changes generated from the shipped candidates (`generated_candidates`)."""
    return changes_of(generated_candidates(knowledge, entries))


def unloaded(knowledge: Path, entries: tuple[SpecChange, ...]) -> tuple[Unloaded, ...]:
    """The generated changes counted, grouped by what decides whether a transition crosses them:
    what an audit that does not load them (no `--harvested`) says it did not check."""
    return counted(generated_changes(knowledge, entries))


def counted(changes: Iterable[SpecChange]) -> tuple[Unloaded, ...]:
    """`changes` grouped by package, releases and hazard, with their counts (`unloaded`)."""
    groups = Counter((c.package, c.introduced, c.until, c.hazard) for c in changes)
    return tuple(
        Unloaded(*group, count) for group, count in sorted(groups.items(), key=lambda g: repr(g[0]))
    )
