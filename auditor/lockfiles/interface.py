"""What every lock format module provides, and the helpers they share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from auditor.errors import LockfileError
from auditor.models import Lock


@dataclass(frozen=True, slots=True)
class LockFormat:
    """A lock format: its name, how sure it is that a file is its own, and its parser.

    `claims(path, text)` returns 0 (not mine), 1 (the content looks like mine) or 2 (the file
    name is mine); detection takes the highest claim.
    """

    name: str
    claims: Callable[[Path, str], int]
    parse: Callable[[Path, str], Lock]


def parse_version(text: str, path: Path | str, line: int | None = None) -> Version:
    try:
        return Version(text.strip())
    except InvalidVersion as exc:
        raise LockfileError(f"invalid version {text.strip()!r}", path, line) from exc


def canonical(name: str) -> str:
    return canonicalize_name(name)
