"""uv.lock (version 1, any revision). A name may be locked more than once: forks of the
resolution (`resolution-markers`) or one version per index (`torch 2.7.0` from PyPI for macOS,
`torch 2.7.0+cu128` from the PyTorch index for Linux). Each lock entry is one pin; its marker is
the fork's, or else the markers of the dependency edges that choose it."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

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


def _without_files(text: str) -> str:
    return _FILES.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def parse(path: Path, text: str) -> Lock:
    document = Fields(load_toml(path, _without_files(text)), "uv.lock", path)
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
    edges = _edge_markers(packages)
    groups = _direct_groups(packages)
    pins = []
    for package in packages:
        source = package.table("source")
        if any(key in source for key in _PROJECT_SOURCES):
            continue
        name = canonical(package.required("name"))
        version = package.version("version")
        marker = _fork_marker(package)
        if marker is None and counts[name] > 1:
            marker = edges.get((name, str(version)))
        pins.append(
            Pin(
                name=name,
                version=version,
                marker=normal_marker(marker),
                source=_source(source),
                groups=groups.get(name, ()),
                line=package.line,
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


def _edge_markers(packages: list[Fields]) -> dict[tuple[str, str], str | None]:
    """For names locked more than once: the markers under which some package depends on each
    version. An edge without a marker makes that version unconditional (None)."""
    found: dict[tuple[str, str], set[str | None]] = defaultdict(set)
    for package in packages:
        tables = [package.array("dependencies")]
        tables += [
            v for v in package.table("optional-dependencies").values() if isinstance(v, list)
        ]
        tables += [v for v in package.table("dev-dependencies").values() if isinstance(v, list)]
        for edge in (e for table in tables for e in table if isinstance(e, dict)):
            if "version" in edge and "name" in edge:
                found[(canonical(str(edge["name"])), str(edge["version"]))].add(edge.get("marker"))
    result: dict[tuple[str, str], str | None] = {}
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
