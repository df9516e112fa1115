"""A `Pipfile`: not a lock, but pipenv's declaration, read like a pyproject.toml's (its exact pins
as pins, its ranges for `--resolve`). `[packages]` is the `default` category and `[dev-packages]`
`develop`, as in the Pipfile.lock made from it; any other table of packages is a category of its
own. A value is a version (`"==2.1.0"`, `">=2"`, `"*"`) or a table with `version`, `extras`,
`markers` (and marker keys such as `sys_platform`), `index` (a `[[source]]` by name), or a `git`,
`path` or `file` location."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from auditor.errors import LockfileError
from auditor.lockfiles.interface import (
    LockFormat,
    archive_version,
    canonical,
    index_source,
    load_toml,
    nothing_in,
    unique_pins,
)
from auditor.lockfiles.pep508 import is_local, requirement_pin
from auditor.models import Lock, Pin

FORMAT = "Pipfile"
_CATEGORIES = {"packages": "default", "dev-packages": "develop"}
_NOT_PACKAGES = {"source", "requires", "pipenv", "scripts"}
_MARKER_KEYS = (
    "os_name",
    "sys_platform",
    "platform_machine",
    "platform_python_implementation",
    "platform_release",
    "platform_system",
    "platform_version",
    "python_version",
    "python_full_version",
    "implementation_name",
    "implementation_version",
)
_LOCATIONS = ("git", "hg", "svn", "bzr", "path", "file")


def claims(path: Path, text: str) -> int:
    # a declaration, not a lock: claimed by name only, and weakly (as pyproject.toml is)
    return 1 if path.name == FORMAT else 0


def parse(path: Path, text: str) -> Lock:
    if not text.strip():
        raise nothing_in(path, FORMAT)
    data = load_toml(path, text)
    indexes = {
        s.get("name"): s.get("url")
        for s in data.get("source", [])
        if isinstance(s, dict) and isinstance(s.get("url"), str)
    }
    lines = text.splitlines()
    pins: list[Pin] = []
    for table, entries in data.items():
        if table in _NOT_PACKAGES or not isinstance(entries, dict):
            continue
        category = _CATEGORIES.get(table, table)
        start = _table_line(lines, table)
        for name, value in entries.items():
            line = _line_of(lines, name, start)
            pins.append(_pin(name, value, category, indexes, path, line))
    kept = unique_pins((p, path) for p in pins)
    requires = data.get("requires")
    python = requires.get("python_version") if isinstance(requires, dict) else None
    return Lock(
        path=str(path),
        format=FORMAT,
        pins=tuple(sorted(kept, key=lambda p: p.line or 0)),
        python=python if isinstance(python, str) else None,
    )


def _pin(
    name: str,
    value: Any,
    category: str,
    indexes: dict[Any, Any],
    path: Path,
    line: int | None,
) -> Pin:
    if isinstance(value, str):
        value = {"version": value}
    if not isinstance(value, dict):
        raise LockfileError(
            f"{name}: expected a version string or a table, found {type(value).__name__}",
            path,
            line,
        )
    location = next((value[k] for k in _LOCATIONS if isinstance(value.get(k), str)), None)
    if location is not None:
        local = not isinstance(value.get("git"), str) and is_local(location)
        return Pin(
            canonical(name),
            archive_version(name, location),
            _marker(value),
            location,
            (category,),
            line,
            local=local,
        )
    version = value.get("version", "*")
    if not isinstance(version, str):
        raise LockfileError(f"{name}.version: expected a string", path, line)
    extras = value.get("extras")
    wanted = f"[{','.join(extras)}]" if isinstance(extras, list) and extras else ""
    marker = _marker(value)
    text = f"{name}{wanted}{'' if version.strip() == '*' else version}" + (
        f"; {marker}" if marker else ""
    )
    index = value.get("index")
    source = index_source(indexes.get(index, index)) if isinstance(index, str) else None
    return requirement_pin(text, path, line, groups=(category,), source=source)


def _marker(value: dict[str, Any]) -> str | None:
    parts = [value["markers"]] if isinstance(value.get("markers"), str) else []
    parts += [f"{key} {value[key]}" for key in _MARKER_KEYS if isinstance(value.get(key), str)]
    return " and ".join(f"({p})" if len(parts) > 1 else p for p in parts) or None


def _table_line(lines: list[str], table: str) -> int:
    pattern = re.compile(rf"^\s*\[\s*[\"']?{re.escape(table)}[\"']?\s*\]")
    return next((n for n, line in enumerate(lines) if pattern.match(line)), 0)


def _line_of(lines: list[str], name: str, start: int) -> int | None:
    pattern = re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*=")
    return next((n + 1 for n in range(start, len(lines)) if pattern.match(lines[n])), None)


PIPFILE_MANIFEST = LockFormat(FORMAT, claims, parse)
