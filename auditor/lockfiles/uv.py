"""uv.lock (version 1, any revision). A name may be locked more than once: forks of the
resolution (`resolution-markers`) or one version per index (`torch 2.7.0` from PyPI for macOS,
`torch 2.7.0+cu128` from the PyTorch index for Linux). Each lock entry is one pin; its marker is
the fork's, or else the markers of the dependency edges that choose it, an edge from one of the
project's extras holding only with that extra (`extra == 'extra-6-myproj-cpu'` where the extras
conflict, as uv writes it). Each pin keeps the names of its wheel files and of its dependencies."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from auditor.errors import LockfileError
from auditor.lockfiles.interface import (
    Fields,
    LockFormat,
    canonical,
    header_lines,
    index_source,
    load_toml,
    normal_marker,
    nothing_in,
)
from auditor.models import Lock, Pin

FORMAT = "uv.lock"
_PROJECT_SOURCES = (
    "virtual",
    "editable",
)  # the project and its workspace members, not dependencies


def claims(path: Path, text: str) -> int:
    if path.name == "uv.lock":
        return 3
    head = text[:2048]
    return (
        1
        if head.startswith("version = 1") and "[[package]]" in text and "source = {" in text
        else 0
    )


# `sdist` and `wheels` are most of a uv.lock and nothing we read: blanking them before the TOML
# parser (same line count, so errors keep their line numbers) halves the time to read a lock.
_FILES = re.compile(
    r"^(?:sdist = \{[^\n]*\}|wheels = \[[^\n]*\]|wheels = \[\n(?:[ \t]+[^\n]*\n)*\])$", re.MULTILINE
)


_WHEEL_FILE = re.compile(r'/([^/"]+\.whl)"')


def _without_files(text: str) -> tuple[str, list[tuple[int, tuple[str, ...]]]]:
    """The text with files blanked, and each `wheels` list's line with its file names."""
    wheels: list[tuple[int, tuple[str, ...]]] = []
    line, position = 1, 0

    def blank(match: re.Match[str]) -> str:
        nonlocal line, position
        block = match.group(0)
        line += text.count("\n", position, match.start())
        position = match.start()
        if block.startswith("wheels"):
            wheels.append((line, tuple(unquote(name) for name in _WHEEL_FILE.findall(block))))
        return "\n" * block.count("\n")

    return _FILES.sub(blank, text), wheels


def parse(path: Path, text: str) -> Lock:
    blanked, wheel_lists = _without_files(text)
    document = Fields(load_toml(path, blanked), "uv.lock", path)
    if not document.data:
        raise nothing_in(path, FORMAT)
    version = document.data.get("version")
    if version != 1:
        raise LockfileError(f"unsupported uv.lock version {version!r} (known: 1)", path, 1)
    lines = header_lines(text, "[[package]]")
    packages = [
        Fields(raw, f"package[{i}]", path, lines[i] if i < len(lines) else None)
        for i, raw in enumerate(document.array("package"))
    ]
    counts: dict[str, int] = defaultdict(int)
    for package in packages:
        counts[canonical(package.required("name"))] += 1
    extras = _extra_spelling(document)
    edges = _edge_markers(packages, extras)
    groups = _direct_groups(packages)
    wheels = _wheels_by_package(lines, wheel_lists)
    everywhere = _reached_outside_extras(packages)
    pins = []
    for index, package in enumerate(packages):
        source = package.table("source")
        if any(key in source for key in _PROJECT_SOURCES):
            continue
        name = canonical(package.required("name"))
        version = package.version("version")
        marker = _fork_marker(package)
        if marker is None and (counts[name] > 1 or name not in everywhere):
            marker = edges.get((name, str(version)), edges.get((name, None)))
        pins.append(
            Pin(
                name=name,
                version=version,
                marker=normal_marker(marker),
                source=_source(source),
                groups=groups.get(name, ()),
                line=package.line,
                wheels=wheels.get(index, ()),
                requires=tuple(
                    canonical(str(e["name"]))
                    for e in package.array("dependencies")
                    if isinstance(e, dict) and "name" in e
                ),
            )
        )
    return Lock(
        path=str(path), format=FORMAT, pins=tuple(pins), python=document.string("requires-python")
    )


def _source(source: dict[str, Any]) -> str | None:
    if "registry" in source:
        return index_source(str(source["registry"]))
    for key in ("git", "url", "path", "directory"):
        if key in source:
            return str(source[key])
    return None


def _fork_marker(package: Fields) -> str | None:
    markers = [str(m) for m in package.array("resolution-markers")]
    if not markers:
        return None
    return markers[0] if len(markers) == 1 else " or ".join(f"({m})" for m in markers)


def _wheels_by_package(
    lines: list[int], wheel_lists: list[tuple[int, tuple[str, ...]]]
) -> dict[int, tuple[str, ...]]:
    """Each `[[package]]` (by index) with the wheel files listed under it."""
    found: dict[int, tuple[str, ...]] = {}
    for line, names in wheel_lists:
        index = bisect_right(lines, line) - 1
        if index >= 0:
            found[index] = found.get(index, ()) + names
    return found


def _extra_spelling(document: Fields) -> dict[tuple[str, str], str]:
    """How markers name each extra of the project: uv spells a conflicting extra `cpu` of
    `myproj` `extra-6-myproj-cpu`; any other extra is its own name."""
    spelled = {}
    for group in document.array("conflicts"):
        for item in group if isinstance(group, list) else []:
            if isinstance(item, dict) and "extra" in item and "package" in item:
                package = canonical(str(item["package"]))
                spelled[(package, str(item["extra"]))] = (
                    f"extra-{len(package)}-{package}-{item['extra']}"
                )
    return spelled


def _reached_outside_extras(packages: list[Fields]) -> set[str]:
    """The names something other than the project's extras depends on: installed whatever the
    extras, as far as the lock says."""
    reached = set()
    for package in packages:
        project = any(key in package.table("source") for key in _PROJECT_SOURCES)
        tables = [package.array("dependencies")] + [
            v for v in package.table("dev-dependencies").values() if isinstance(v, list)
        ]
        if not project:
            tables += [
                v for v in package.table("optional-dependencies").values() if isinstance(v, list)
            ]
        reached |= {
            canonical(str(e["name"]))
            for t in tables
            for e in t
            if isinstance(e, dict) and "name" in e
        }
    return reached


def _edge_markers(
    packages: list[Fields], extras: dict[tuple[str, str], str]
) -> dict[tuple[str, str | None], str | None]:
    """The markers under which some package depends on each version of a name (version None:
    the edges that name no version). An edge without a marker makes that version unconditional
    (None); an edge from one of the project's extras holds only with that extra."""
    found: dict[tuple[str, str | None], set[str | None]] = defaultdict(set)
    for package in packages:
        project = any(key in package.table("source") for key in _PROJECT_SOURCES)
        owner = canonical(package.required("name")) if project else ""
        tables: list[tuple[str | None, list[Any]]] = [(None, package.array("dependencies"))]
        tables += [
            (extra if project else None, v)
            for extra, v in package.table("optional-dependencies").items()
            if isinstance(v, list)
        ]
        tables += [
            (None, v) for v in package.table("dev-dependencies").values() if isinstance(v, list)
        ]
        for extra, table in tables:
            for edge in (e for e in table if isinstance(e, dict) and "name" in e):
                marker = edge.get("marker")
                if extra is not None:
                    spelled = extras.get((owner, extra), extra)
                    marker = (
                        f"({marker}) and extra == '{spelled}'"
                        if marker
                        else f"extra == '{spelled}'"
                    )
                version = str(edge["version"]) if "version" in edge else None
                found[(canonical(str(edge["name"])), version)].add(marker)
    result: dict[tuple[str, str | None], str | None] = {}
    for key, markers in found.items():
        if None in markers:
            result[key] = None
        else:
            ordered = sorted(str(m) for m in markers)
            result[key] = (
                ordered[0] if len(ordered) == 1 else " or ".join(f"({m})" for m in ordered)
            )
    return result


def _direct_groups(packages: list[Fields]) -> dict[str, tuple[str, ...]]:
    """Group names of the project's direct dependencies: `main`, its extras, its dev groups."""
    groups: dict[str, list[str]] = defaultdict(list)
    for package in packages:
        if not any(key in package.table("source") for key in _PROJECT_SOURCES):
            continue
        tables: list[tuple[str, Any]] = [("main", package.array("dependencies"))]
        tables += list(package.table("optional-dependencies").items())
        tables += list(package.table("dev-dependencies").items())
        for group, edges in tables:
            for edge in edges if isinstance(edges, list) else []:
                if isinstance(edge, dict) and "name" in edge:
                    name = canonical(str(edge["name"]))
                    if group not in groups[name]:
                        groups[name].append(group)
    return {name: tuple(found) for name, found in groups.items()}


UV = LockFormat(FORMAT, claims, parse)
