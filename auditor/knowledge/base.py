"""The knowledge base: which spec changes a transition crosses."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from auditor.errors import UsageError
from auditor.knowledge import horizon as horizons
from auditor.knowledge.entry import SpecChange, Unloaded
from auditor.knowledge.loader import default_directory
from auditor.knowledge.presence import NOTHING, Presence
from auditor.knowledge.stored import kept_changes, load_stored, read_base
from auditor.models import EnvironmentFinding, Transition

if TYPE_CHECKING:
    from auditor.harvest.fly import FlySettings

UNCHECKED = ("that this audit did not check: --harvested (the Action's `harvested` input) reports their call sites, "
             "at low confidence")
UNLISTED = "that this list leaves out: `kb coverage` counts them, `scan --harvested` reports their call sites"


@dataclass(frozen=True)
class KnowledgeBase:
    entries: tuple[SpecChange, ...]
    horizon: dict[str, Version] = field(default_factory=dict)  # the newest release reviewed, per package
    notes: tuple[str, ...] = ()  # a kept base that could not be used
    fly: FlySettings | None = None  # `--harvest`: how to harvest the releases past the shipped harvest
    unloaded: tuple[Unloaded, ...] = ()  # the generated changes not loaded (no `--harvested`), counted
    presence: Presence = NOTHING  # what `hasattr(module, "name")` finds per release, for the version guards

    @classmethod
    def load(
        cls, directory: Path | None = None, cache_dir: Path | None = None, harvested: bool = False,
        fly: FlySettings | None = None,
    ) -> KnowledgeBase:
        """The entries under `directory` (default: the shipped knowledge), parsed and checked;
        with `cache_dir`, kept there for the next run with the same files. With `harvested`, also
        the changes generated from the shipped harvest (off by default: they are not
        probe-verified: `--harvested`). With `fly`, an audit harvests the releases a transition
        reaches past the shipped harvest (`--harvest`)."""
        root = directory or default_directory()
        knowledge, notes = load_stored(root, cache_dir, read_base)
        entries, unloaded = knowledge.entries, knowledge.unloaded
        if harvested:
            generated, more = kept_changes(root, cache_dir)
            entries = tuple(sorted(entries + generated, key=lambda e: (e.package, e.introduced, e.id)))
            unloaded, notes = (), notes + more
        if fly is not None:
            fly = replace(fly, knowledge=root)
        return cls(entries, knowledge.horizon, notes, fly, unloaded, Presence(str(root)))

    def harvest_beyond(self, transitions: Iterable[Transition]) -> tuple[KnowledgeBase, tuple[str, ...]]:
        """With `fly`: this knowledge and the generated changes of the releases the transitions
        reach past the shipped harvest, and the notes that say what was harvested."""
        if self.fly is None or self.fly.knowledge is None:
            return self, ()
        from auditor.harvest.fly import harvest_beyond  # the harvester: only with `--harvest`

        extra, notes = harvest_beyond(transitions, self.fly.knowledge, self.horizon, self.entries, self.fly)
        entries = tuple(sorted(self.entries + extra, key=lambda e: (e.package, e.introduced, e.id)))
        return replace(self, entries=entries), notes

    def beyond(
        self, transitions: Iterable[Transition]
    ) -> tuple[tuple[EnvironmentFinding, ...], tuple[str, ...]]:
        """The moves this knowledge cannot vouch for, as findings and as notes."""
        return horizons.beyond(transitions, self.horizon)

    def not_loaded(self, transitions: Iterable[Transition], unchecked: str = UNCHECKED) -> tuple[str, ...]:
        """Per transition, the note that says how many changes generated from the package's own
        released source it crosses that were left out (`--harvested` loads them), ending with
        `unchecked`: what was left out, and how to have them."""
        notes = []
        for t in transitions:
            count = sum(g.count for g in self.unloaded if g.crossed_by(t))
            if count:
                notes.append(
                    f"{t.package} {t.old} -> {t.new} also crosses {count} change{'s' if count != 1 else ''} "
                    f"generated from {t.package}'s own released source (not probe-verified) {unchecked}"
                )
        return tuple(dict.fromkeys(notes))

    def packages(self) -> list[str]:
        return sorted({e.package for e in self.entries}, key=lambda p: (p != "torch", p))

    def get(self, change_id: str) -> SpecChange:
        for entry in self.entries:
            if entry.id == change_id:
                return entry
        raise UsageError(f"no knowledge entry with id {change_id!r}")

    def for_package(self, package: str) -> tuple[SpecChange, ...]:
        return tuple(e for e in self.entries if e.package == package)

    def crossed(
        self, transitions: Iterable[Transition], python: str | None = None
    ) -> tuple[SpecChange, ...]:
        """Entries whose behaviour differs between the two sides of any of the transitions, in
        the way the entry says can hurt code (its `hazard`)."""
        found = {
            e.id: e
            for t in transitions
            for e in self.for_package(t.package)
            if e.crossed_by(t) and e.applies_to_python(python)
        }
        return tuple(sorted(found.values(), key=lambda e: (e.package, e.introduced, e.id)))

    def good_news(
        self, transitions: Iterable[Transition], python: str | None = None
    ) -> tuple[SpecChange, ...]:
        """Entries an upgrade crosses the harmless way where that ends a warning or opens an
        API, except those a crossed later stage continues (the removal after a deprecation
        ending says more than the warning's end)."""
        transitions = tuple(transitions)
        hazards = self.crossed(transitions, python)
        continued = {earlier for e in hazards for earlier in e.follows}  # every earlier stage
        found = {
            e.id: e
            for t in transitions
            for e in self.for_package(t.package)
            if e.good_news_for(t) and e.applies_to_python(python) and e.id not in continued
        }
        return tuple(sorted(found.values(), key=lambda e: (e.package, e.introduced, e.id)))
