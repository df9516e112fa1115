"""What `hasattr(module, "name")` finds on each release, from the shipped harvest
(`knowledge/<package>/harvest/presence.json`, made by `auditor.harvest.presence`).

    if hasattr(nn.utils.parametrizations, "weight_norm"):  # torch 2.1.0 on
        weight_norm = nn.utils.parametrizations.weight_norm
    else:
        weight_norm = nn.utils.weight_norm  # before 2.1.0 only: its 2.1 deprecation never reaches it

A release between two read ones has the older one's names; outside the releases read (past the
harvest's newest minor release, before its oldest) nothing is known. Read lazily, once per
process, and only when a scan reads such a test.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from packaging.version import InvalidVersion, Version

from auditor.models import ABSENT, PRESENCE_FILE, PRESENT

_HARVEST = "harvest"
_tables: dict[Path, _Table | None] = {}


@dataclass(frozen=True)
class Presence:
    """The presence tables under a knowledge directory (None: nothing known, no `hasattr` is
    read); `digest` tells their contents apart (the scan cache's context)."""

    directory: str | None = None

    @cached_property
    def digest(self) -> str:
        """Of the tables' bytes ("" for none), read when a scan cache is opened."""
        if self.directory is None:
            return ""
        digest = hashlib.sha256()
        for path in sorted(Path(self.directory).glob(f"*/{_HARVEST}/{PRESENCE_FILE}")):
            try:
                digest.update(path.parent.parent.name.encode() + b"\0" + path.read_bytes() + b"\0")
            except OSError:
                continue  # read again when a test needs it, and then said to be unknown
        return digest.hexdigest()

    def known(self, name: str) -> bool:
        table = self._table(name.split(".", 1)[0])
        return table is not None and name in table.names

    def present(self, name: str, version: Version) -> bool | None:
        """Whether release `version` has `name`; None when not known."""
        table = self._table(name.split(".", 1)[0])
        if table is None or name not in table.names:
            return None
        releases = table.releases
        base = Version(version.base_version)
        at = bisect_right(releases, base) - 1
        if at < 0 or (at == len(releases) - 1 and base.release[:2] != releases[-1].release[:2]):
            return None  # before the oldest release read, or past the newest one's minor release
        state = next((s for since, s in reversed(table.states(name)) if since <= releases[at]), None)
        return True if state == PRESENT else False if state == ABSENT else None

    def _table(self, package: str) -> _Table | None:
        if self.directory is None:
            return None
        path = Path(self.directory) / package / _HARVEST / PRESENCE_FILE
        if path not in _tables:
            _tables[path] = _read(path)
        return _tables[path]


class _Table:
    """One package's table: the releases read, and each name's states as written; a name's are
    parsed when it is first asked about."""

    def __init__(self, releases: tuple[Version, ...], names: dict[str, list[str]]):
        self.releases = releases
        self.names = names
        self._parsed: dict[str, list[tuple[Version, str]]] = {}

    def states(self, name: str) -> list[tuple[Version, str]]:
        found = self._parsed.get(name)
        if found is None:
            try:
                found = [(Version(s[1:]), s[0]) for s in self.names[name]]
            except (InvalidVersion, TypeError, IndexError):
                found = []  # damaged: nothing known
            self._parsed[name] = found
        return found


def _read(path: Path) -> _Table | None:
    """The table, or None when there is none or it cannot be read (then nothing is known)."""
    try:
        data = json.loads(path.read_bytes())
        releases = tuple(sorted(Version(v) for v in data["releases"]))
        names = data["names"]
        if not isinstance(names, dict):
            return None
    except (OSError, ValueError, KeyError, TypeError, InvalidVersion):
        return None
    return _Table(releases, names)


NOTHING = Presence()
