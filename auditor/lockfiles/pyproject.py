"""A `pyproject.toml`'s dependencies: not a lock, but its exact pins are read as pins, and
`--resolve` turns its ranges into pins. Read: `[project]` dependencies and optional
dependencies, `[dependency-groups]`, poetry's `[tool.poetry.dependencies]`,
`[tool.poetry.dev-dependencies]` and `[tool.poetry.group.<name>.dependencies]`, PDM's
`[tool.pdm.dev-dependencies]` and uv's `[tool.uv] dev-dependencies`. Where `[tool.conda-lock]`
is present, conda-lock reads poetry's tables as conda packages: `pytorch` is torch."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from auditor.errors import LockfileError
from auditor.lockfiles.conda import CONDA_NAMES
from auditor.lockfiles.interface import (
    Fields,
    LockFormat,
    archive_version,
    canonical,
    in_extra,
    load_toml,
    normal_marker,
    unique_pins,
)
from auditor.lockfiles.pep508 import editable_pin, is_local, local_pin, requirement_pin
from auditor.models import Lock, Pin

FORMAT = "pyproject.toml"


def claims(path: Path, text: str) -> int:
    # An input, not a lock: recognised by name but claimed weakly, so that looking for changed
    # lockfiles by name (claims >= 2) passes it by.
    return 1 if path.name == "pyproject.toml" else 0


class _Lines:
    """Where a requirement or a key is written: the first line holding it after its table's
    header (a table written inline under its parent is searched from the parent's header)."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.headers: dict[str, int] = {}
        for number, line in enumerate(self.lines):
            found = re.match(r"\s*\[([^\[\]]+)\]\s*(#.*)?$", line)
            if found:
                self.headers.setdefault(re.sub(r"\s|\"|'", "", found.group(1)), number)

    def find(self, table: str, pattern: re.Pattern[str]) -> int | None:
        parts = table.split(".")
        start = next(
            (
                self.headers[t]
                for t in (".".join(parts[:n]) for n in range(len(parts), 0, -1))
                if t in self.headers
            ),
            0,
        )
        return next(
            (n + 1 for n in range(start, len(self.lines)) if pattern.search(self.lines[n])), None
        )

    def requirement(self, table: str, text: str) -> int | None:
        return self.find(table, re.compile(rf"([\"']){re.escape(text)}\1"))

    def key(self, table: str, name: str) -> int | None:
        return self.find(table, re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*="))


def parse(path: Path, text: str) -> Lock:
    document = Fields(load_toml(path, text), "pyproject.toml", path)
    lines = _Lines(text)
    tool = Fields(document.table("tool"), "tool", path)
    project = Fields(document.table("project"), "project", path)
    pins: list[Pin] = []
    for group, items, table in _requirement_lists(document, project, tool):
        for item in items:
            if isinstance(item, str):  # `{include-group = "test"}` entries add no requirement
                pin = _string_pin(item, path, lines.requirement(table, item), group)
                pins.append(
                    in_extra(pin, group) if table == "project.optional-dependencies" else pin
                )
    poetry = Fields(tool.table("poetry"), "tool.poetry", path)
    python = project.string("requires-python")
    conda = "conda-lock" in tool.data
    for group, table, entries in _poetry_tables(poetry, path):
        for name, spec in entries.items():
            if canonical(name) == "python":
                python = python or (spec if isinstance(spec, str) else None)
                continue
            where = f"{table}.{name}"
            package = (
                CONDA_NAMES.get(canonical(name), canonical(name)) if conda else canonical(name)
            )
            pins += _poetry_pins(
                package, spec, Fields({}, where, path, lines.key(table, name)), group
            )
    by_group: dict[str, list[Pin]] = {}
    for pin in pins:
        by_group.setdefault(pin.groups[0], []).append(pin)
    kept = [p for group in by_group.values() for p in unique_pins((p, path) for p in group)]
    return Lock(
        path=str(path),
        format=FORMAT,
        pins=tuple(sorted(kept, key=lambda p: p.line or 0)),
        python=python,
    )


def _requirement_lists(
    document: Fields, project: Fields, tool: Fields
) -> list[tuple[str, list[Any], str]]:
    """(group, PEP 508 strings, table) of every list of requirement strings."""
    path = document.path
    found: list[tuple[str, list[Any], str]] = [("main", project.array("dependencies"), "project")]
    for table, groups in (
        ("project.optional-dependencies", project.table("optional-dependencies")),
        ("dependency-groups", document.table("dependency-groups")),
        (
            "tool.pdm.dev-dependencies",
            Fields(tool.table("pdm"), "tool.pdm", path).table("dev-dependencies"),
        ),
    ):
        found += [(str(g), items, table) for g, items in groups.items() if isinstance(items, list)]
    uv = Fields(tool.table("uv"), "tool.uv", path)
    found.append(("dev", uv.array("dev-dependencies"), "tool.uv"))
    return found


def _string_pin(text: str, path: Path, line: int | None, group: str) -> Pin:
    """A PEP 508 string; PDM's dev groups also hold `-e ./libs/x` and bare paths."""
    if text.startswith(("-e ", "--editable ")):
        pin = editable_pin(text.split(None, 1)[1].strip(), path, line)
        return Pin(
            pin.name,
            pin.version,
            pin.marker,
            pin.source,
            (group, *pin.groups),
            line,
            local=pin.local,
        )
    if is_local(text):
        return local_pin(text, line, groups=(group,))
    return requirement_pin(text, path, line, groups=(group,))


def _poetry_tables(poetry: Fields, path: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(group, table, entries) of poetry's dependency tables."""
    tables = [
        ("main", "tool.poetry.dependencies", poetry.table("dependencies")),
        ("dev", "tool.poetry.dev-dependencies", poetry.table("dev-dependencies")),
    ]
    for name, group in poetry.table("group").items():
        where = f"tool.poetry.group.{name}"
        tables.append(
            (str(name), f"{where}.dependencies", Fields(group, where, path).table("dependencies"))
        )
    return tables


def _poetry_pins(name: str, spec: Any, where: Fields, group: str) -> list[Pin]:
    """`torch = "2.5.1"`, `{version = "^2.5", markers = "..."}`, `{path = "../lib", develop =
    true}`, `{git = "..."}`, `{url = "..."}`, or a list of tables (one per environment);
    `where` holds the entry's dotted name, file and line."""
    if isinstance(spec, list):
        return [p for item in spec for p in _poetry_pins(name, item, where, group)]
    table = Fields(
        spec if isinstance(spec, dict) else {"version": spec}, where.where, where.path, where.line
    )
    marker = normal_marker(table.string("markers"))
    groups = (group, "optional") if table.data.get("optional") is True else (group,)
    local = table.string("path")
    if local is not None:
        editable = ("editable",) if table.data.get("develop") is True else ()
        version = archive_version(name, local)
        return [Pin(name, version, marker, local, (*groups, *editable), where.line, local=True)]
    git, url = table.string("git"), table.string("url")
    if git is not None:
        ref = table.string("rev") or table.string("tag") or table.string("branch")
        return [
            Pin(name, None, marker, f"git+{git}" + (f"@{ref}" if ref else ""), groups, where.line)
        ]
    if url is not None:
        return [
            Pin(
                name,
                archive_version(name, url),
                marker,
                url,
                groups,
                where.line,
                local=is_local(url),
            )
        ]
    constraint = (table.string("version") or "*").strip()
    version, specifier = _poetry_constraint(constraint, where)
    return [
        Pin(name, version, marker, table.string("source"), groups, where.line, specifier=specifier)
    ]


_CARET_TILDE = re.compile(r"^([\^~])\s*(\d+(?:\.\d+)*)$")


def _poetry_constraint(text: str, where: Fields) -> tuple[Version | None, str | None]:
    """Poetry's constraint as a pin (`2.5.1`, `==2.5.1`) or a PEP 440 range (`^2.5` is
    `>=2.5,<3.0`, `~2.5.1` is `>=2.5.1,<2.6`); an `||` alternative is kept as written."""
    bare = text.removeprefix("==").strip()
    if re.fullmatch(r"[0-9][A-Za-z0-9.+!_-]*", bare):
        try:
            return Version(bare), None
        except InvalidVersion as exc:
            raise LockfileError(
                f"{where.where}: invalid version {bare!r}", where.path, where.line
            ) from exc
    if text in ("*", ""):
        return None, None
    if "||" in text:
        return None, text
    parts = [p for p in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", text) if p]
    return None, ",".join(_range(p) for p in parts)


def _range(part: str) -> str:
    found = _CARET_TILDE.match(part)
    if not found:
        return part if part[0] in "<>=!~" else f"=={part}"
    kind, text = found.groups()
    given = [int(n) for n in text.split(".")]
    if kind == "^":
        bump = next((i for i, n in enumerate(given) if n), len(given) - 1)
    else:
        bump = min(1, len(given) - 1)
    upper = [*given[:bump], given[bump] + 1] + [0] * (len(given) - bump - 1)
    return f">={text},<{'.'.join(map(str, upper))}"


PYPROJECT = LockFormat(FORMAT, claims, parse)
