"""uv.lock (version 1, any revision). A name may be locked more than once: forks of the
resolution (`resolution-markers`) or one version per index (`torch 2.7.0` from PyPI for macOS,
`torch 2.7.0+cu128` from the PyTorch index for Linux). Each lock entry is one pin; its marker is
the fork's, or else the markers of the dependency edges that choose it, an edge from one of the
project's extras holding only with that extra (`extra == 'extra-6-myproj-cpu'` where the extras
conflict, as uv writes it). Where extras conflict, a fork names the extras uv resolved together,
not those that install the pin (a fork without any of the project's extras still resolves the
`xpu` build its `xpu` extra would install): the pin's marker is then the fork's and the edges'.
The lock's `conflicts` (the sets of extras and groups uv never activates together; where the lock
does not record them, the `[tool.uv] conflicts` of the pyproject.toml beside it) are kept, and
the extras of the project that activate extras of another (`cpu = ["mylib[cpu]"]`).
Each pin keeps the names of its wheel files and of its dependencies."""

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
    conflicts = _conflicts(document.array("conflicts"))
    if not conflicts:  # those declared beside it, where the markers spell them as uv does
        spelled = (
            [i for i in group if i[3] in text] for group in _conflicts(_declared_conflicts(path))
        )
        conflicts = [group for group in spelled if group]
    extras = {
        (package, name): spelled
        for kind, package, name, spelled in _items(conflicts)
        if kind == "extra"
    }
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
        if counts[name] > 1 or name not in everywhere:
            reached = edges.get(
                (name, str(version), _source(source)),
                edges.get((name, str(version), None), edges.get((name, None, None))),
            )
            if marker is None:
                marker = reached
            elif conflicts and reached is not None:
                marker = f"({marker}) and ({reached})"
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
        path=str(path),
        format=FORMAT,
        pins=tuple(pins),
        python=document.string("requires-python"),
        conflicts=tuple(frozenset(item[3] for item in group) for group in conflicts),
        activates=_activates(packages, extras),
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


Conflict = tuple[str, str, str, str]  # "extra" or "group", package, its name, as markers spell it


def _conflicts(declared: list[Any]) -> list[list[Conflict]]:
    """The sets of conflicting extras and groups, each item with the spelling markers use: uv
    spells a conflicting extra `cpu` of `myproj` `extra-6-myproj-cpu` and a group `dev`
    `group-6-myproj-dev` (any other extra is its own name)."""
    sets = []
    for group in declared:
        items = []
        for item in group if isinstance(group, list) else []:
            kind = (
                next((k for k in ("extra", "group") if k in item), None)
                if isinstance(item, dict)
                else None
            )
            if kind is not None and "package" in item:
                package, name = canonical(str(item["package"])), str(item[kind])
                items.append((kind, package, name, f"{kind}-{len(package)}-{package}-{name}"))
        if items:
            sets.append(items)
    return sets


def _declared_conflicts(path: Path) -> list[Any]:
    """`[tool.uv] conflicts` of the pyproject.toml beside the lock, an item without `package`
    being the project's own; none where that file is missing or unreadable."""
    pyproject = path.parent / "pyproject.toml"
    try:
        data = load_toml(pyproject, pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, LockfileError):
        return []
    project, tool = data.get("project"), data.get("tool")
    name = project.get("name") if isinstance(project, dict) else None
    uv = tool.get("uv") if isinstance(tool, dict) else None
    declared = uv.get("conflicts") if isinstance(uv, dict) else None
    if not isinstance(declared, list) or not isinstance(name, str):
        return []
    return [
        [{"package": name, **item} if isinstance(item, dict) else item for item in group]
        for group in declared
        if isinstance(group, list)
    ]


def _items(conflicts: list[list[Conflict]]) -> list[Conflict]:
    return [item for group in conflicts for item in group]


def _activates(
    packages: list[Fields], extras: dict[tuple[str, str], str]
) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each extra of a project package that asks for extras of another project package (a
    workspace member, a path dependency), spelled as markers spell them."""
    projects = [p for p in packages if any(key in p.table("source") for key in _PROJECT_SOURCES)]
    names = {canonical(p.required("name")) for p in projects}
    found: dict[str, set[str]] = defaultdict(set)
    for package in projects:
        owner = canonical(package.required("name"))
        for extra, edges in package.table("optional-dependencies").items():
            for edge in edges if isinstance(edges, list) else []:
                target = canonical(str(edge.get("name", ""))) if isinstance(edge, dict) else ""
                if target in names and isinstance(edge.get("extra"), list):
                    found[extras.get((owner, extra), extra)] |= {
                        extras.get((target, str(e)), str(e)) for e in edge["extra"]
                    }
    return tuple((extra, frozenset(others)) for extra, others in sorted(found.items()))


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


Edge = tuple[str, str | None, str | None]  # name, version, source


def _edge_markers(
    packages: list[Fields], extras: dict[tuple[str, str], str]
) -> dict[Edge, str | None]:
    """The markers under which some package depends on each version of a name, from each
    source (version None: the edges that name no version; source None: PyPI, or not named). An
    edge without a marker makes that version unconditional (None); an edge from one of the
    project's extras holds only with that extra."""
    found: dict[Edge, set[str | None]] = defaultdict(set)
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
                source = edge.get("source")
                origin = _source(source) if isinstance(source, dict) and version else None
                found[(canonical(str(edge["name"])), version, origin)].add(marker)
    result: dict[Edge, str | None] = {}
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
