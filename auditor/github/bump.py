"""What a Dependabot or Renovate PR says it bumps, read from its title and body.

Used to name the bump in the comment, and to audit a bump whose lockfiles the run cannot
read (only a manifest range changed, or no lock is committed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_VER = r"v?[0-9][^\s`,;)]*"
_PREFIX = r"^(?:[a-z]+(?:\([^)]*\))?!?:\s*)?"  # build(deps): / chore(deps)!:

_TITLE_DEPENDABOT = re.compile(
    _PREFIX
    + rf"bump (?P<name>{_NAME}) from (?P<old>{_VER}) to (?P<new>{_VER})(?: in (?P<dir>\S+))?",
    re.IGNORECASE,
)
_TITLE_RANGE = re.compile(
    _PREFIX + rf"update (?P<name>{_NAME}) requirement from (?P<old>\S+) to (?P<new>\S+)",
    re.IGNORECASE,
)
_TITLE_GROUP = re.compile(_PREFIX + r"bump the (?P<group>\S+) group", re.IGNORECASE)
_TITLE_RENOVATE = re.compile(
    _PREFIX + rf"update (?:dependency )?(?P<name>{_NAME}) to (?P<new>{_VER})\s*(?:\[.*\])?$",
    re.IGNORECASE,
)
_TITLE_MAINTENANCE = re.compile(_PREFIX + r"lock ?file maintenance", re.IGNORECASE)

_BODY_BUMPS = re.compile(
    rf"Bumps \[(?P<name>{_NAME})\]\([^)]*\) from (?P<old>{_VER}) to (?P<new>{_VER})", re.IGNORECASE
)
_BODY_UPDATES = re.compile(
    rf"Updates? `?(?P<name>{_NAME})`? from (?P<old>{_VER}) to (?P<new>{_VER})", re.IGNORECASE
)
# Renovate's table: | [torch](https://…) | `2.5.1` -> `2.6.0` |   or   `==2.5.1` → `==2.6.0`
_BODY_RENOVATE_ROW = re.compile(
    rf"^\|\s*\[?(?P<name>{_NAME})\]?(?:\([^)]*\))?[^|\n]*\|(?:[^|\n]*\|)*?[^|\n]*?"
    r"`(?P<old>[^`\n]+)`\s*(?:->|→)\s*`(?P<new>[^`\n]+)`",
    re.MULTILINE,
)
_RENOVATE_MARKS = ("<!--renovate-debug:", "This PR contains the following updates", "renovatebot")
_DEPENDABOT_MARKS = (
    "Dependabot will resolve any conflicts",
    "dependabot-automerge",
    "Dependabot commands",
)


@dataclass(frozen=True, slots=True)
class Bump:
    package: str  # canonical name
    old: str | None  # as written: a version, or a range for requirement updates
    new: str | None

    def versions(self) -> tuple[Version, Version] | None:
        """Both sides as exact versions, when they are (`==1.2`, `v2.6.0` and `1.2` are)."""
        try:
            if self.old is None or self.new is None:
                return None
            return Version(self.old.lstrip("=v")), Version(self.new.lstrip("=v"))
        except InvalidVersion:
            return None

    def ranges(self) -> tuple[SpecifierSet, SpecifierSet] | None:
        """Both sides as ranges (`<2.0,>=1.12`), for requirement updates that name no version."""
        try:
            if self.old is None or self.new is None:
                return None
            return SpecifierSet(self.old), SpecifierSet(self.new)
        except InvalidSpecifier:
            return None


@dataclass(frozen=True, slots=True)
class BumpInfo:
    bot: str | None  # "dependabot", "renovate" or None
    bumps: tuple[Bump, ...]
    maintenance: bool = False  # a lock file maintenance PR: anything may move
    group: str | None = None

    def describe(self) -> str | None:
        who = {"dependabot": "Dependabot", "renovate": "Renovate"}.get(self.bot or "", "This PR")
        if self.maintenance:
            return f"{who}: lock file maintenance (every locked version may move)"
        if not self.bumps:
            return None
        moves = ", ".join(f"{b.package} {b.old or '?'} -> {b.new or '?'}" for b in self.bumps)
        group = f" (group {self.group})" if self.group else ""
        return f"{who} bumps {moves}{group}"

    def for_package(self, package: str) -> Bump | None:
        return next((b for b in self.bumps if b.package == package), None)


def _bump(name: str, old: str | None, new: str | None) -> Bump:
    def clean(v: str | None) -> str | None:
        if not v:
            return v
        v = v.rstrip(".")  # "from 1.2 to 1.3." ends a sentence
        return v[1:] if v[:1] in "vV" and v[1:2].isdigit() else v

    return Bump(canonicalize_name(name), clean(old), clean(new))


def _unique(bumps: Iterable[Bump]) -> tuple[Bump, ...]:
    seen: dict[str, Bump] = {}
    for b in bumps:
        if b.package not in seen or (seen[b.package].old is None and b.old is not None):
            seen[b.package] = b
    return tuple(seen.values())


def parse_bump(title: str, body: str = "", author: str = "") -> BumpInfo:
    title = title.strip()
    body = body or ""
    bot = None
    if "dependabot" in author.lower() or any(m in body for m in _DEPENDABOT_MARKS):
        bot = "dependabot"
    elif "renovate" in author.lower() or any(m in body for m in _RENOVATE_MARKS):
        bot = "renovate"
    if _TITLE_MAINTENANCE.search(title):
        return BumpInfo(bot or "renovate", (), maintenance=True)

    bumps: list[Bump] = []
    group = None
    if (m := _TITLE_DEPENDABOT.search(title)) or (m := _TITLE_RANGE.search(title)):
        bumps.append(_bump(m["name"], m["old"], m["new"]))
        bot = bot or "dependabot"
    elif m := _TITLE_GROUP.search(title):
        group = m["group"]
        bot = bot or "dependabot"
    elif m := _TITLE_RENOVATE.search(title):
        bot = bot or "renovate"
        title_bump = _bump(m["name"], None, m["new"])
        bumps.append(title_bump)

    body_bumps = [_bump(m["name"], m["old"], m["new"]) for m in _BODY_BUMPS.finditer(body)]
    body_bumps += [_bump(m["name"], m["old"], m["new"]) for m in _BODY_UPDATES.finditer(body)]
    body_bumps += [_bump(m["name"], m["old"], m["new"]) for m in _BODY_RENOVATE_ROW.finditer(body)]
    # The body is more precise (Renovate's title has no old version); keep its versions.
    merged = _unique(body_bumps + bumps)
    return BumpInfo(bot, merged, group=group)


def from_metadata(names: str, previous: str, new: str) -> tuple[Bump, ...]:
    """dependabot/fetch-metadata outputs: `dependency-names`, `previous-version`, `new-version`."""
    packages = [n.strip() for n in names.split(",") if n.strip()]
    if len(packages) != 1 or not previous or not new:
        # fetch-metadata gives one version pair for the whole PR: only trust it for one package
        return tuple(_bump(p, None, None) for p in packages)
    return (_bump(packages[0], previous, new),)
