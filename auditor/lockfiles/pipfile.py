"""Pipfile.lock (pipfile-spec 6): `default` and `develop` (and any other category), each entry a
registry pin (`"version": "==2.0.1"`, `index`, `markers`), a file URL, a VCS or a path. A range
written into the lock by hand (`">=0.4.1"`) is read as an unpinned requirement: the comparison
says that side is not a lock."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from auditor.errors import LockfileError
from auditor.lockfiles.interface import (
    Fields,
    LockFormat,
    archive_version,
    canonical,
    distribution_from_url,
    index_source,
    load_json,
    normal_marker,
    nothing_in,
    parse_version,
)
from auditor.lockfiles.pep508 import is_local
from auditor.models import Lock, Pin

FORMAT = "Pipfile.lock"
_ENTRY = re.compile(r'^\s*"([^"]+)"\s*:\s*\{')


def claims(path: Path, text: str) -> int:
    if path.name == "Pipfile.lock" or path.name.endswith(".Pipfile.lock"):
        return 3
    head = text[:4096]
    return (
        1 if text.lstrip().startswith("{") and '"_meta"' in head and '"pipfile-spec"' in text else 0
    )


def parse(path: Path, text: str) -> Lock:
    if not text.strip():
        raise nothing_in(path, FORMAT)
    document = Fields(load_json(path, text), "Pipfile.lock", path)
    meta = Fields(document.table("_meta"), "_meta", path)
    indexes: dict[str | None, str | None] = {}
    for number, raw in enumerate(meta.array("sources")):
        source = Fields(raw, f"_meta.sources[{number}]", path)
        indexes[source.string("name")] = source.string("url")
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        found = _ENTRY.match(line)
        if found:
            lines.setdefault(found.group(1), number)
    python = Fields(meta.table("requires"), "_meta.requires", path).string("python_version")
    pins: dict[tuple[object, ...], Pin] = {}
    for category, entries in document.data.items():
        if category == "_meta":
            continue
        if not isinstance(entries, dict):
            raise LockfileError(
                f"{category}: expected a table of packages", path, lines.get(category)
            )
        for name, raw in entries.items():
            pin = _pin(
                name, Fields(raw, f"{category}.{name}", path, lines.get(name)), category, indexes
            )
            key = (pin.name, pin.version, pin.marker, pin.source)
            if key in pins:
                pin = pins[key]
                pin = replace(pin, groups=(*pin.groups, category))
            pins[key] = pin
    return Lock(path=str(path), format=FORMAT, pins=tuple(pins.values()), python=python)


def _pin(name: str, entry: Fields, category: str, indexes: dict[str | None, str | None]) -> Pin:
    version_text = entry.string("version")
    version, source, specifier = None, None, None
    if version_text and version_text.startswith("==") and not version_text.startswith("==="):
        version = parse_version(version_text.lstrip("="), entry.path, entry.line)
    elif version_text and version_text != "*":  # a range written into the lock by hand
        try:
            specifier = str(SpecifierSet(version_text))
        except InvalidSpecifier:
            raise entry.fail(
                "version", f"expected '==<version>' or a range, found {version_text!r}"
            ) from None
    file_url = entry.string("file")
    vcs = next((key for key in ("git", "hg", "svn", "bzr") if entry.data.get(key)), None)
    groups = (category, "editable") if entry.data.get("editable") is True else (category,)
    if entry.string("path") or (file_url and is_local(file_url)):  # a folder: no version to pin
        location = entry.string("path") or file_url or ""
        return Pin(
            canonical(name),
            archive_version(name, location),
            normal_marker(entry.string("markers")),
            location,
            groups,
            entry.line,
            local=True,
        )
    if file_url:
        source = file_url
        found = distribution_from_url(file_url)
        version = version or (found[1] if found else None)
    elif vcs:
        ref = entry.string("ref")
        source = f"{vcs}+{entry.string(vcs)}" + (f"@{ref}" if ref else "")
    elif entry.string("index"):
        index = entry.string("index")
        source = index_source(indexes.get(index, index))
    return Pin(
        name=canonical(name),
        version=version,
        marker=normal_marker(entry.string("markers")),
        source=source,
        groups=groups,
        specifier=specifier,
        line=entry.line,
    )


PIPFILE = LockFormat(FORMAT, claims, parse)
