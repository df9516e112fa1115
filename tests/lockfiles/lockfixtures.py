"""Shared helpers of the lock format tests: fixture paths and pin look-ups."""

from pathlib import Path

from auditor.lockfiles import read_lock
from auditor.models import Lock, Pin

LOCKS = Path(__file__).resolve().parents[1] / "fixtures" / "lockfiles"


def read(relative: str, format_name: str | None = None) -> Lock:
    return read_lock(LOCKS / relative, format_name)


def pins(lock: Lock, name: str) -> list[Pin]:
    return [p for p in lock.pins if p.name == name]


def versions(lock: Lock) -> dict[str, str | None]:
    """name -> version (or the unpinned specifier) for names locked once."""
    return {p.name: str(p.version) if p.version is not None else p.specifier for p in lock.pins}
