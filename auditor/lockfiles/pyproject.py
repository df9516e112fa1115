"""A `pyproject.toml`'s dependencies: not a lock, but an input `--resolve` can turn into one.
Its `[project]` dependencies and optional dependencies, and its `[dependency-groups]`."""

from __future__ import annotations

from pathlib import Path

from auditor.lockfiles.interface import Fields, LockFormat, load_toml
from auditor.lockfiles.pep508 import requirement_pin
from auditor.models import Lock, Pin

FORMAT = "pyproject.toml"


def claims(path: Path, text: str) -> int:
    # An input, not a lock: recognised by name but claimed weakly, so that looking for changed
    # lockfiles by name (claims >= 2) passes it by.
    return 1 if path.name == "pyproject.toml" else 0


def parse(path: Path, text: str) -> Lock:
    document = Fields(load_toml(path, text), "pyproject.toml", path)
    project = Fields(document.table("project"), "project", path)
    requirements: list[tuple[str, str]] = [("main", str(r)) for r in project.array("dependencies")]
    for group, items in project.table("optional-dependencies").items():
        requirements += [(group, str(r)) for r in items if isinstance(items, list)]
    for group, items in document.table("dependency-groups").items():
        requirements += [
            (group, r) for r in items if isinstance(items, list) and isinstance(r, str)
        ]
    lines = text.splitlines()
    pins: list[Pin] = []
    for group, requirement in requirements:
        line = next((n for n, ln in enumerate(lines, start=1) if requirement in ln), None)
        pins.append(requirement_pin(requirement, path, line, groups=(group,)))
    return Lock(
        path=str(path), format=FORMAT, pins=tuple(pins), python=project.string("requires-python")
    )


PYPROJECT = LockFormat(FORMAT, claims, parse)
