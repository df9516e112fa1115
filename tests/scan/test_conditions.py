"""The registry of argument conditions: each entry works end to end on its own example, from a
knowledge entry through the loader's schema to a finding, and the registry, `Condition` and the
schema file agree. A condition added to the registry is tested here without another line."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import tomllib

from auditor.knowledge import conditions
from auditor.knowledge.entry import Condition
from auditor.knowledge.loader import parse_entry
from auditor.scan.conditions import TESTS
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_source

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "knowledge" / "torch" / "2.4" / "load-weights-only-default-warns" / "change.toml"
SCHEMA = ROOT / "auditor" / "knowledge" / "entry.schema.json"


def _entry_with(match: dict[str, Any]) -> dict[str, Any]:
    raw = copy.deepcopy(tomllib.loads(ENTRY.read_text("utf-8")))
    raw["match"] = [match]
    return raw


def _lines(match: dict[str, Any], source: str) -> list[int]:
    change, problems = parse_entry(_entry_with(match), "example.toml")
    assert change is not None, problems
    index = RuleIndex.build([change])
    return [f.line for f in scan_source(f"import torch\n{source}\n", "example.py", index)]


@pytest.mark.parametrize("kind", conditions.KINDS, ids=lambda k: k.name)
def test_each_condition_decides_its_example(kind: conditions.Kind) -> None:
    example = kind.example
    assert kind.name in example.match
    assert _lines(example.match, example.meets) == [2]
    assert _lines(example.match, example.fails) == []


@pytest.mark.parametrize("kind", conditions.KINDS, ids=lambda k: k.name)
def test_the_loader_validates_each_condition_with_its_fragment(kind: conditions.Kind) -> None:
    match = {"call": "torch.load", kind.name: {"not": "a valid value"} if kind.schema.get("type") != "object" else 3}
    change, problems = parse_entry(_entry_with(match), "bad.toml")
    assert change is None
    assert any(kind.name in p for p in problems), problems


def test_registry_names_the_fields_of_condition() -> None:
    assert [k.name for k in conditions.KINDS] == [f.name for f in dataclasses.fields(Condition)]


def test_the_scanner_tests_each_condition_of_the_registry() -> None:
    assert list(TESTS) == [k.name for k in conditions.KINDS]


def test_schema_file_holds_the_registry_fragments() -> None:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    properties = schema["properties"]["match"]["items"]["properties"]
    registry = conditions.schema_properties()
    assert {k: properties.get(k) for k in registry} == registry


def test_what_partial_and_references_can_tell() -> None:
    absent = Condition(keyword_absent=("weights_only",))
    assert conditions.reference_confidence(Condition()) == "medium"
    assert conditions.reference_confidence(absent) == "low"
    assert conditions.reference_confidence(Condition(max_positional=1)) is None
    assert conditions.for_partial(Condition(min_positional=2, keyword_absent=("a",))) == Condition(keyword_absent=("a",))
    assert conditions.for_partial(Condition(float_bound=("min",))) is None
    assert conditions.on_receiver_dtype(Condition(float_bound=("min",)))
    assert not conditions.on_receiver_dtype(absent)
