"""The schema's lists come from the Python lists that the code reads (kinds, hazards,
consequences, severities, conditions, fix actions), and the shipped `entry.schema.json`, which
editors read, holds the same schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest
import tomllib

from auditor.fix.spec import ACTIONS
from auditor.knowledge import loader
from auditor.knowledge.entry import CONSEQUENCES, KINDS, Severity

SCHEMA = Path(loader.__file__).with_name("entry.schema.json")
ENTRY = SCHEMA.parents[2] / "knowledge" / "torch" / "2.4" / "load-weights-only-default-warns" / "change.toml"


def test_the_shipped_schema_file_is_the_schema_the_loader_checks_with() -> None:
    assert json.loads(SCHEMA.read_text("utf-8")) == loader._schema()


def test_the_schema_lists_come_from_the_python_lists() -> None:
    schema = loader._schema()
    assert schema["properties"]["kind"]["enum"] == list(KINDS)
    assert schema["properties"]["consequence"]["enum"] == list(CONSEQUENCES)
    assert schema["properties"]["severity"]["enum"] == list(get_args(Severity))
    transform = schema["$defs"]["transform"]
    assert transform["properties"]["action"]["enum"] == list(ACTIONS)
    assert {s for a in ACTIONS.values() for s in a.shapes} == set(transform["properties"]["on"]["enum"])


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_a_transform_without_a_field_its_action_needs_is_rejected(action: str) -> None:
    needed = ACTIONS[action].required
    transform = {"on": ACTIONS[action].shapes[0], "action": action, **{f: "x" for f in needed[1:]}}
    entry = {**tomllib.loads(ENTRY.read_text("utf-8")), "fix": {"keep_old": [transform]}}
    change, problems = loader.parse_entry(entry, "entry.toml")
    assert change is None
    assert f"entry.toml: fix.keep_old[0]: '{needed[0]}' is a required property" in problems, problems
