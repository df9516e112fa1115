"""One PEP 508 requirement string (`torch==2.0.1+cu118 ; python_version >= "3.9"`) as a Pin."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from auditor.errors import LockfileError, redact
from auditor.lockfiles.interface import (
    archive_version,
    canonical,
    distribution_from_url,
    normal_marker,
    parse_version,
)
from auditor.models import Pin

# The shape of nearly every line of a lock: parsed without the full PEP 508 grammar, for speed.
_PLAIN_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([A-Za-z0-9.+!_-]+)")


def requirement_pin(
    text: str,
    path: Path | str,
    line: int | None,
    groups: tuple[str, ...] = (),
    source: str | None = None,
) -> Pin:
    plain = _PLAIN_PIN.fullmatch(text)
    if plain:
        exact = parse_version(plain.group(2), path, line)
        return Pin(canonical(plain.group(1)), exact, source=source, groups=groups, line=line)
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        raise LockfileError(f"not a requirement: {_where_invalid(exc)}", path, line) from exc
    marker = str(req.marker) if req.marker else None
    version: Version | None = None
    specifier = str(req.specifier) or None
    local = False
    if req.url:
        version, specifier = archive_version(req.name, req.url), None
        local = is_local(req.url)
    else:
        pinned = [s for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
        if len(pinned) == 1:
            try:
                version, specifier = Version(pinned[0].version), None
            except InvalidVersion:
                specifier = f"==={pinned[0].version}"  # a legacy version: pinned, but not PEP 440
    return Pin(
        name=canonical(req.name),
        version=version,
        marker=marker,
        source=req.url or source,
        groups=groups,
        line=line,
        specifier=specifier,
        local=local,
    )


def _where_invalid(exc: InvalidRequirement) -> str:
    """packaging's reason and the one character where reading stopped, never the line itself:
    the line may come from a file that is no requirements file (`-c /etc/shadow`)."""
    reason, *rest = str(exc).splitlines()
    if len(rest) >= 2 and "^" in rest[-1]:
        column = rest[-1].index("^")
        text = rest[-2]
        if column < len(text):
            return f"{reason} (column {column + 1 - _indent(rest[-1], text)}: {text[column]!r})"
    return reason


def _indent(caret: str, text: str) -> int:
    """packaging indents the quoted line and its caret alike; columns count from the text."""
    return len(text) - len(text.lstrip(" ")) if caret.startswith(" ") else 0


_EGG = re.compile(r"[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_LOCAL = re.compile(r"file:|\.{1,2}([/\\\[]|$)|[/\\~]|[A-Za-z]:[/\\]", re.IGNORECASE)
_BARE_PATH = re.compile(r"[^\s;<>=!~@]*[/\\]")  # `libs/x`: a separator before any operator
_MARKER = re.compile(r"\s*;\s+")  # pip's split of a URL or path from its marker


def is_local(target: str) -> bool:
    """A path or `file:` URL (`.`, `.[all]`, `./libs/x`, `libs/x`, `C:\\src\\x`, `file:.`),
    not `name @ url`, not a VCS or web URL."""
    if target[:5].lower() == "file:":
        return True
    if " @ " in target:
        return False
    if _LOCAL.match(target):
        return True
    return "://" not in target and _BARE_PATH.match(target) is not None


def local_pin(target: str, line: int | None, groups: tuple[str, ...] = ()) -> Pin:
    """A path or `file:` requirement: named by its `#egg=` fragment or an archive's file name,
    versioned by the archive's file name; a folder has neither, and its path is no name."""
    location, *marker = _MARKER.split(target, maxsplit=1)
    egg = _EGG.search(location)
    found = distribution_from_url(location.replace("\\", "/"))
    name = canonical(egg.group(1)) if egg else canonical(found[0]) if found else ""
    return Pin(
        name,
        archive_version(name, location),
        normal_marker(marker[0]) if marker else None,
        source=location,
        groups=groups,
        line=line,
        local=True,
    )


def editable_pin(target: str, path: Path | str, line: int | None) -> Pin:
    """`-e git+https://...@sha#egg=name`, `-e .[all]`, `-e name @ file:///src/name`: VCS checkouts
    named by their egg fragment or repository, local folders by what the line says only."""
    if is_local(target):
        return local_pin(target, line, groups=("editable",))
    egg = _EGG.search(target)
    if egg:
        name = egg.group(1)
    elif " @ " in target or re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[.*\])?$", target):
        pin = requirement_pin(target, path, line)
        return replace(pin, groups=(*pin.groups, "editable")) if pin.local else pin
    else:
        name = _name_from_location(target, path, line)
    return Pin(canonical(name), None, source=target, line=line, groups=("editable",))


def _name_from_location(target: str, path: Path | str, line: int | None) -> str:
    """A repository's name (`git+https://host/org/repo.git@v1`): the last segment of the path,
    never the host or the credentials before it."""
    location = re.split(r"[#?]", target)[0]
    if "://" in location:
        location = urlsplit(location).path
    name = location.rstrip("/").rsplit("/", 1)[-1].split("@", 1)[0].removesuffix(".git")
    if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", name):
        raise LockfileError(
            f"cannot tell the package of the URL {redact(target)}: write NAME @ URL or add #egg=NAME",
            path,
            line,
        )
    return name


def url_pin(target: str, path: Path | str, line: int | None) -> Pin:
    """A bare URL or file path line: the wheel or sdist file name says what it is. A marker after
    `; ` applies to the line, as pip reads it (`git+https://host/org/repo; sys_platform == 'linux'`)."""
    if is_local(target):
        return local_pin(target, line)
    location, *marker = _MARKER.split(target, maxsplit=1)
    where = normal_marker(marker[0]) if marker else None
    found = distribution_from_url(location)
    if found:
        return Pin(canonical(found[0]), found[1], where, source=location, line=line)
    pin = editable_pin(location, path, line)
    return Pin(pin.name, None, where, source=location, line=line)
