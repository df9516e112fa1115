"""The knowledge schema is checked twice over: a compiled quick check (fastjsonschema) passes
the valid entries, and jsonschema lists the problems of those it rejects. The two must reject the
same entries, or a broken entry would load unchecked: every shipped entry is broken here in the
ways the schema forbids, and each break is checked against both."""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from auditor.knowledge.loader import _validator, default_directory, knowledge_files, schema_problems

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _entries() -> list[tuple[str, dict[str, Any]]]:
    root = default_directory()
    return [
        (file.relative_to(root).as_posix(), tomllib.loads(file.read_text("utf-8")))
        for file in knowledge_files(root)
        if file.name != "horizon.toml"
    ]


def _breaks(raw: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """`raw` broken one way at a time, at the top and inside each table and list of tables."""

    def broken_at(path: tuple[Any, ...], change: Any, key: str) -> dict[str, Any]:
        """A copy of `raw` with `change` made to `key` of the table at `path`."""
        broken = copy.deepcopy(raw)
        holder = broken
        for part in path:
            holder = holder[part]
        change(holder, key)
        return broken

    def at(path: tuple[Any, ...], value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
        if isinstance(value, dict):
            for key in list(value):
                for what, change in (
                    ("dropped", lambda d, k: d.pop(k)),
                    ("number", lambda d, k: d.__setitem__(k, 7)),
                    ("empty string", lambda d, k: d.__setitem__(k, "")),
                    ("list", lambda d, k: d.__setitem__(k, [])),
                    ("table", lambda d, k: d.__setitem__(k, {})),
                ):
                    yield f"{'.'.join(map(str, (*path, key)))} {what}", broken_at(path, change, key)
                yield from at((*path, key), value[key])
            unknown = broken_at(path, lambda d, k: d.__setitem__(k, "x"), "no_such_field")
            yield f"{'.'.join(map(str, path)) or '(entry)'} unknown field", unknown
        elif isinstance(value, list):
            for i, item in enumerate(value[:2]):
                yield from at((*path, i), item)

    yield from at((), raw)


ENTRIES = _entries()


def test_every_shipped_entry_passes_both_checks() -> None:
    assert len(ENTRIES) > 100
    for source, raw in ENTRIES:
        assert schema_problems(raw) == [], source
        assert list(_validator().iter_errors(raw)) == [], source


@pytest.mark.parametrize("number", range(0, len(ENTRIES), max(1, len(ENTRIES) // 40)))
def test_quick_check_rejects_what_jsonschema_rejects(number: int) -> None:
    source, raw = ENTRIES[number]
    rejected = 0
    for what, broken in _breaks(raw):
        slow = list(_validator().iter_errors(broken))
        quick = schema_problems(broken)
        assert bool(quick) == bool(slow), f"{source}: {what}: quick check {'rejects' if quick else 'passes'}, jsonschema {'rejects' if slow else 'passes'}"
        assert sorted(e.message for e in quick) == sorted(e.message for e in slow), f"{source}: {what}"
        rejected += bool(slow)
    assert rejected > 5, f"{source}: the breaks should mostly be rejected"
