"""Whether every locked package accepts the torch family the new lock pins, by its own metadata.

A one-line bump (`torch==2.1.1` -> `2.2.0`) that leaves `xformers==0.0.23`, whose wheel requires
`torch==2.1.1`, cannot be installed (pip refuses it, or with `--no-deps` a compiled extension loads
against another torch). Each such package is a finding at its lock line that names the
requirement and the first later release of the package that accepts the new pins. Where a lock
records each package's dependencies (uv, poetry, pdm), only the packages that name a family
member are read; otherwise every pinned package from the index is. A package that cannot be read
is named, never passed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from packaging.markers import Marker, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.dependencies.metadata import Index, Unread
from auditor.dependencies.reader import Reader
from auditor.lockfiles.interface import TORCH_FAMILY
from auditor.lockfiles.variants import PLATFORMS
from auditor.models import EnvironmentFinding, Pin

_LATER = 40  # later releases read at most, looking for the first that accepts the new pins
_WORKERS = 8


@dataclass(frozen=True, slots=True)
class Checked:
    findings: tuple[EnvironmentFinding, ...]
    unread: tuple[str, ...]  # "name version: why", one per package not read
    read: int  # packages whose requirements were read


def check_requirements(
    pins: Sequence[Pin], reader: Reader, lock_path: str | None = None
) -> Checked:
    """Every pin of one lock side checked against the family versions the same side pins."""
    family = {p.name: p.version for p in pins if p.name in TORCH_FAMILY and p.version is not None}
    if not family:
        return Checked((), (), 0)
    records = any(p.requires for p in pins)
    candidates = [
        p
        for p in readable(pins)
        if not records or any(canonicalize_name(r) in family for r in p.requires)
    ]
    with ThreadPoolExecutor(_WORKERS) as pool:
        answers = list(pool.map(lambda pin: _read(reader, pin), candidates))
    findings, unread = [], []
    for pin, answer in zip(candidates, answers):
        if isinstance(answer, str):
            unread.append(answer)
            continue
        for requirement, member in _violated(answer, family):
            findings.append(
                _finding(pin, requirement, member, family[member], reader.index, lock_path)
            )
    findings.sort(key=lambda f: (f.package or "", f.message))
    return Checked(tuple(findings), tuple(sorted(unread)), len(candidates) - len(unread))


def readable(pins: Iterable[Pin]) -> list[Pin]:
    """The pins a dependency audit reads: registry releases, and requirements from version
    control or a URL (read from an environment); not the torch family, not the project's own
    local folders."""
    return [
        p
        for p in pins
        if p.name
        and p.name not in TORCH_FAMILY
        and not p.local
        and (p.version is not None or (p.source or "").startswith(_NOT_INDEXED))
    ]


_NOT_INDEXED = ("git+", "hg+", "svn+", "bzr+", "http://", "https://", "file:")


def _read(reader: Reader, pin: Pin) -> tuple[str, ...] | str:
    try:
        return reader.requires(pin)
    except Unread as exc:
        return f"{pin.name} {pin.version or ''}".rstrip() + f": {exc}"


def _violated(requires: Iterable[str], family: dict[str, Version]) -> list[tuple[Requirement, str]]:
    """The requirements on a family member that its pinned version does not meet. One under a
    marker counts when the marker holds on some platform without extras: requirements of extras
    are left out, as the lock does not say which extras are installed."""
    out = []
    for line in requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        member = str(canonicalize_name(requirement.name))
        if member not in family:
            continue
        if requirement.marker is not None and not _holds_somewhere(requirement.marker):
            continue
        if not requirement.specifier.contains(family[member], prereleases=True):
            out.append((requirement, member))
    return out


def _holds_somewhere(marker: Marker) -> bool:
    for _, _, platform in PLATFORMS:
        try:
            if marker.evaluate({**platform, "extra": ""}):
                return True
        except UndefinedEnvironmentName:
            continue
    return False


def _finding(
    pin: Pin,
    requirement: Requirement,
    member: str,
    version: Version,
    index: Index,
    lock_path: str | None,
) -> EnvironmentFinding:
    first = _first_accepting(index, pin.name, pin.version, member, version) if pin.version else None
    then = (
        f"{pin.name} {first} is the first later release that accepts {member} {version}"
        if first
        else f"no later release of {pin.name} on the index accepts {member} {version} (read up to {_LATER})"
    )
    message = (
        f"{pin.name} {pin.version or f'({pin.source})'} requires {requirement} (its metadata) and the lock pins "
        f"{member} {version}: pip refuses to install the two together, and with --no-deps "
        f"its compiled code may load against the other {member}; {then}"
    )
    return EnvironmentFinding(
        "requirement-violated", "high", message, pin.name, lock_path, pin.line
    )


def _first_accepting(
    index: Index, name: str, locked: Version, member: str, version: Version
) -> Version | None:
    try:
        later = sorted(
            {
                f.version
                for f in index.files(name)
                if f.version > locked and not f.yanked and not f.version.is_devrelease
            }
        )
    except Unread:
        return None
    for candidate in later[:_LATER]:
        try:
            release = index.release(name, candidate)
        except Unread:
            continue
        if not _violated(release.requires, {member: version}):
            return candidate
    return None
