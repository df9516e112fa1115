import json
from dataclasses import replace
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from auditor import pipeline
from auditor.report import RENDERERS, sarif

SCHEMA = Path(__file__).resolve().parents[1] / "fixtures" / "report" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> Draft4Validator:
    return Draft4Validator(json.loads(SCHEMA.read_text("utf-8")))


def _errors(validator, document):
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(document)]


@pytest.mark.parametrize("case", ["findings", "no-transition", "no-change", "untouched"])
def test_validates_against_schema(validator, cases, case):
    document = json.loads(sarif.render(cases[case], prefix="src/"))
    assert _errors(validator, document) == []


def test_schema_test_can_fail(validator, result):
    document = json.loads(sarif.render(result))
    document["runs"][0]["results"][0]["level"] = "fatal"
    assert _errors(validator, document)


def test_example_project_validates(validator, kb, examples):
    result = pipeline.compare(
        examples / "requirements-old.txt", examples / "requirements-new.txt", examples / "project", kb
    )
    document = json.loads(sarif.render(result, prefix="examples/project/"))
    assert _errors(validator, document) == []
    assert len(document["runs"][0]["results"]) == len(result.findings) >= 8


def test_golden(result, golden):
    golden("sarif.golden", sarif.render(result, prefix="src/"))


def test_registered():
    assert RENDERERS["sarif"] is sarif.render


def test_one_run_rules_and_results(result):
    document = json.loads(sarif.render(result, prefix="src/"))
    assert document["version"] == "2.1.0" and len(document["runs"]) == 1
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(c.id for c in result.changes)
    for r in rules:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"]
        assert "Keep the old behaviour" in r["help"]["text"]
        assert "## Adopt the new behaviour" in r["help"]["markdown"]
        assert r["helpUri"].startswith("https://")
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["torch-floor-divide-rounds-toward-floor"] == "error"
    assert levels["torch-clamp-type-promotion"] == "warning"
    for r in run["results"]:
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"].startswith("src/")
        assert not location["artifactLocation"]["uri"].startswith("/")
        assert " " not in location["artifactLocation"]["uri"]  # percent-encoded
        assert location["region"]["startLine"] >= 1
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any("no wheel for Python 3.6" in n["message"]["text"] for n in notes)


def _fingerprints(result):
    run = json.loads(sarif.render(result))["runs"][0]
    return [r["partialFingerprints"][sarif.FINGERPRINT] for r in run["results"]]


def test_fingerprints_survive_moved_lines_and_separate_twins(result):
    before = _fingerprints(result)
    assert len(set(before)) == len(before)
    moved = replace(result, findings=tuple(replace(f, line=f.line + 7) for f in result.findings))
    assert _fingerprints(moved) == before
    twin = replace(result, findings=result.findings + (replace(result.findings[0], line=99),))
    after = _fingerprints(twin)
    assert len(set(after)) == len(after)
    assert set(before) <= set(after)
