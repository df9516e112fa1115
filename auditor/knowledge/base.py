"""The knowledge base: which spec changes a transition crosses."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from auditor.errors import UsageError
from auditor.knowledge.loader import load_entries
from auditor.models import SpecChange, Transition


@dataclass(frozen=True)
class KnowledgeBase:
    entries: tuple[SpecChange, ...]

    @classmethod
    def load(cls, directory: Path | None = None) -> KnowledgeBase:
        return cls(load_entries(directory))

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
        """Entries whose behaviour differs between the two sides of any of the transitions."""
        found = {
            e.id: e
            for t in transitions
            for e in self.for_package(t.package)
            if e.crossed_by(t) and e.applies_to_python(python)
        }
        return tuple(sorted(found.values(), key=lambda e: (e.package, e.introduced, e.id)))
