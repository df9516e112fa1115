"""`--harvest`: the releases a transition reaches past the shipped harvest, harvested on the fly
from their wheels (kept per release in the harvest cache) and turned into generated changes.

The shipped harvest ends at its newest release per package; a bump to a later release is
otherwise only reported as beyond the knowledge base. That finding stays: a harvest reads the
released Python code, it is not a review (C++ warnings, behaviour changes without a warning stay
unseen). Every release that cannot be read, and every candidate left open, is said in a note.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from auditor.errors import AuditorError
from auditor.harvest.generate import Open, matches, spec_change
from auditor.harvest.run import HarvestSettings, harvest
from auditor.harvest.shipped import DIRECTORY, read_waivers
from auditor.knowledge.entry import SpecChange, release
from auditor.models import Transition

PACKAGES = ("torch", "torchvision", "torchaudio", "numpy")


@dataclass(frozen=True, slots=True)
class FlySettings:
    index: str  # the simple index the wheels come from
    cache_dir: Path | None  # where each release's harvest is kept (None: nothing kept)
    knowledge: Path | None = None  # the knowledge directory whose shipped harvest is extended


def shipped_end(knowledge: Path, package: str) -> Version | None:
    """The newest release the shipped harvest of `package` reaches (None: no harvest shipped)."""
    directory = knowledge / package / DIRECTORY
    ends = []
    for path in directory.glob("*..*.toml") if directory.is_dir() else ():
        try:
            ends.append(Version(path.name.removesuffix(".toml").split("..")[1]))
        except (InvalidVersion, IndexError):
            continue
    return max(ends, default=None)


def beyond_harvest(
    transitions: Iterable[Transition], knowledge: Path, horizon: dict[str, Version]
) -> list[tuple[str, Version, Version]]:
    """(package, first, last): the releases after the shipped harvest (or, without one, after the
    horizon) up to a transition's newest endpoint, once per package."""
    wanted: dict[str, tuple[Version, Version]] = {}
    for t in transitions:
        if t.package not in PACKAGES:
            continue
        start = shipped_end(knowledge, t.package) or horizon.get(t.package)
        ends = [release(v) for v in (t.old, t.new) if v is not None]
        if start is None or not ends or max(ends) <= start:
            continue
        last = max([max(ends), *([wanted[t.package][1]] if t.package in wanted else [])])
        wanted[t.package] = (start, last)
    return [(package, first, last) for package, (first, last) in sorted(wanted.items())]


def harvest_beyond(
    transitions: Iterable[Transition],
    knowledge: Path,
    horizon: dict[str, Version],
    entries: tuple[SpecChange, ...],
    settings: FlySettings,
) -> tuple[tuple[SpecChange, ...], tuple[str, ...]]:
    """The generated changes of the releases past the shipped harvest, and the notes that say
    what was read, what failed and what was left open."""
    covered = {cid for e in entries for cid in e.covers}
    made: list[SpecChange] = []
    notes: list[str] = []
    for package, first, last in beyond_harvest(transitions, knowledge, horizon):
        span = f"{package} {first} -> {last}"
        try:
            done = harvest(
                package,
                str(first),
                str(last),
                HarvestSettings(index=settings.index, cache_dir=settings.cache_dir),
            )
        except AuditorError as exc:
            notes.append(f"--harvest: {span} not harvested: {exc}")
            continue
        waivers = read_waivers(knowledge, package)
        generated = waived = left = 0
        for c in done.candidates:
            if c.id in covered or c.waived is not None or any(w.waives(c) for w in waivers):
                waived += 1
                continue
            found = matches(c)
            if isinstance(found, Open):
                left += 1
                continue
            made.append(spec_change(c, found, f"harvested on the fly from {settings.index}"))
            generated += 1
        read = ", ".join(r.version for r in done.releases) or "none"
        notes.append(
            f"--harvest: {span} harvested on the fly from the released wheels ({read}): "
            f"{len(done.candidates)} candidates, {generated} reported as generated changes (from {package}'s "
            f"own source, not probe-verified), {waived} covered or waived, {left} left open (no narrow matcher)"
        )
        notes += [f"--harvest: {note}" for note in done.notes]
    return tuple(made), tuple(notes)
