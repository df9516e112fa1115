"""The locked dependencies that call torch, scanned at their locked versions with the project's
knowledge and scanner, each finding with the project's ways into it.

A dependency is read when its metadata requires a torch-family package (`Requires-Dist`, under any
marker or extra): its wheel's sources are unpacked into the cache (`sources`) and scanned as a
project. Each finding keeps the package, its version and the path inside the package; `via` names
the project's calls that reach the affected line (`reach`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.cachefiles import write_whole
from auditor.dependencies.metadata import Index, Unread
from auditor.dependencies.reach import Package, ProjectCalls
from auditor.dependencies.reader import Reader
from auditor.dependencies.requirements import readable
from auditor.dependencies.sources import sources
from auditor.knowledge.entry import SpecChange
from auditor.lockfiles.interface import TORCH_FAMILY
from auditor.models import Finding, InDependency, Pin
from auditor.scan import scan_project
from auditor.scan.cache import knowledge_fingerprint, scanner_fingerprint
from auditor.scan.config import ScanConfig
from auditor.scan.project import ScanOptions


@dataclass(frozen=True, slots=True)
class DependencyScan:
    findings: tuple[InDependency, ...]
    unread: tuple[str, ...]  # "name version: why"
    scanned: tuple[str, ...]  # "name version", each package read


def calls_torch(requires: Iterable[str]) -> bool:
    for line in requires:
        try:
            if canonicalize_name(Requirement(line).name) in TORCH_FAMILY:
                return True
        except InvalidRequirement:
            continue
    return False


def named_for_torch(name: str) -> bool:
    """A package named for torch (torch-geometric, torch-scatter, pytorch-msssim): read even when
    its metadata requires no torch-family package, as PyG's does, leaving torch to the user."""
    return "torch" in canonicalize_name(name)


def scan_dependencies(
    pins: Sequence[Pin],
    reader: Reader,
    changes: Sequence[SpecChange],
    project: Sequence[tuple[str, Path]] = (),
    options: ScanOptions | None = None,
) -> DependencyScan:
    """`project`: the project's files (relative path, file) whose calls may reach a finding."""
    found: list[InDependency] = []
    unread, scanned = [], []
    calls = ProjectCalls(project)
    for pin in readable(pins):
        named = f"{pin.name} {pin.version or ''}".rstrip()
        try:
            if not calls_torch(reader.requires(pin)) and not named_for_torch(pin.name):
                continue
            tree = reader.sources(pin)
        except Unread as exc:
            unread.append(f"{named}: {exc}")
            continue
        scanned.append(named)
        options = options or ScanOptions(workers=1)
        version = pin.version or reader.installed(pin).version  # type: ignore[union-attr]  # read from there
        for row in _results(pin.name, version, tree, reader, changes, options):
            ways = tuple(calls.ways(row.chains, row.names))
            found.append(
                InDependency(pin.name, version, row.finding, ways, row.fixed_in, row.latest)
            )
    return DependencyScan(tuple(found), tuple(sorted(unread)), tuple(scanned))


@dataclass(frozen=True, slots=True)
class _Row:
    """One call in a dependency, as kept: the finding, the chains by which the package's functions
    reach it, and the later releases read."""

    finding: Finding
    chains: tuple[tuple[str, ...], ...]
    fixed_in: Version | None
    latest: Version | None
    names: dict[
        str, tuple[str, ...]
    ]  # a chain's first function -> its other names (`Package.names`)


def _results(
    name: str,
    version: Version,
    tree: Path,
    reader: Reader,
    changes: Sequence[SpecChange],
    options: ScanOptions,
) -> list[_Row]:
    """The calls of one release, scanned once per scanner and set of changes and kept in the cache:
    a second audit of the same lock scans nothing and reads no later release."""
    digest = hashlib.sha256(
        scanner_fingerprint() + _FOLLOWER + knowledge_fingerprint(changes) + tree.name.encode()
    ).hexdigest()
    kept = reader.cache / "dependencies" / "results" / f"{name}-{digest[:32]}.json"
    try:
        return [_row(data) for data in json.loads(kept.read_bytes())]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    calls = _calls(tree, changes, options)
    rows = []
    if calls:
        package = Package(tree)
        later = _Later(reader.index, name, version, reader.cache, changes, options)
        for key, finding in calls:
            holder = package.holding(finding.path, finding.line)
            chains = tuple(package.reaching(holder).values()) if holder is not None else ()
            names = {c[0]: package.names(c[0]) for c in chains}
            rows.append(
                _Row(
                    finding,
                    chains,
                    later.fixed_in(key),
                    later.latest,
                    {head: found for head, found in names.items() if found},
                )
            )
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        write_whole(kept, json.dumps([_data(r) for r in rows]).encode())
    except OSError:
        pass  # scanned again next time
    return rows


def _data(row: _Row) -> dict[str, object]:
    f = row.finding
    return {
        "finding": [
            f.change,
            f.symbol,
            f.path,
            f.line,
            f.column,
            f.cell,
            f.confidence,
            f.message,
            f.snippet,
            f.shape,
        ],
        "chains": [list(c) for c in row.chains],
        "names": {head: list(found) for head, found in sorted(row.names.items())},
        "fixed_in": str(row.fixed_in) if row.fixed_in else None,
        "latest": str(row.latest) if row.latest else None,
    }


def _row(data: dict[str, Any]) -> _Row:
    change, symbol, path, line, column, cell, confidence, message, snippet, shape = data["finding"]
    finding = Finding(
        change, symbol, path, line, column, cell, confidence, message, snippet, shape=shape
    )
    return _Row(
        finding,
        tuple(tuple(c) for c in data["chains"]),
        Version(data["fixed_in"]) if data["fixed_in"] else None,
        Version(data["latest"]) if data["latest"] else None,
        {head: tuple(found) for head, found in data["names"].items()},
    )


def _source(module: str) -> bytes:
    """A module's source, so that kept results change with the code that made them."""
    try:
        return (Path(__file__).parent / module).read_bytes()
    except OSError:  # a zipped install: the scanner's fingerprint has the version
        return b""


_FOLLOWER = _source("reach.py") + _source("audit.py")

_Key = tuple[
    str, str, str
]  # change, file, function holding the call: what stays the same across releases


def _calls(
    tree: Path, changes: Sequence[SpecChange], options: ScanOptions, only: str | None = None
) -> list[tuple[_Key, Finding]]:
    """Each finding of the tree (or of its one file `only`) with its key."""
    findings, _ = scan_project(
        tree / only if only else tree, changes, ScanConfig(respect_gitignore=False), options
    )
    if only:
        findings = [replace(f, path=only) for f in findings]
    package = Package(tree, only)
    return [
        ((f.change, f.path, package.holding(f.path, f.line) or f"line {f.line}"), f)
        for f in sorted(findings, key=lambda f: (f.path, f.line, f.column))
    ]


class _Later:
    """The releases after the locked one, read only when asked: the newest first, then a binary
    search for the first release where a call is gone (at most `_READS` releases per package)."""

    _READS = 6

    def __init__(
        self,
        index: Index,
        name: str,
        locked: Version,
        cache: Path,
        changes: Sequence[SpecChange],
        options: ScanOptions,
    ) -> None:
        self.index, self.name, self.cache, self.changes, self.options = (
            index,
            name,
            cache,
            changes,
            options,
        )
        try:
            self.versions = sorted(
                {
                    f.version
                    for f in index.files(name)
                    if f.version > locked
                    and not f.yanked
                    and not f.version.is_prerelease
                    and not f.version.is_devrelease
                }
            )
        except Unread:
            self.versions = []
        self.latest = self.versions[-1] if self.versions else None
        self._read: dict[tuple[Version, str], set[_Key] | None] = {}

    def fixed_in(self, key: _Key) -> Version | None:
        if not self.versions or self._has(self.versions[-1], key) is not False:
            return None
        low, high = 0, len(self.versions) - 1  # the call is gone at `high`
        while low < high and len(self._read) < self._READS:
            middle = (low + high) // 2
            if self._has(self.versions[middle], key) is False:
                high = middle
            else:
                low = middle + 1
        return self.versions[high]

    def _has(self, version: Version, key: _Key) -> bool | None:
        """Whether the release still has the call (None: it could not be read). Only the file
        that held it is scanned: a call that moved to another file counts as gone."""
        read = (version, key[1])
        if read not in self._read:
            try:
                tree = sources(self.index, self.name, version, self.cache)
                self._read[read] = (
                    {k for k, _ in _calls(tree, self.changes, self.options, key[1])}
                    if (tree / key[1]).is_file()
                    else set()
                )
            except Unread:
                self._read[read] = None
        calls = self._read[read]
        return None if calls is None else key in calls
