"""The horizon: a bump past the newest release the knowledge base reviewed, or of a torch-family
package it knows nothing of, is said in every format and fails the default --fail-on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.errors import KnowledgeError
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.loader import default_directory, read_knowledge

runner = CliRunner()


def scan(project: Path, old: str, new: str, *options: str):
    return runner.invoke(app, ["scan", str(project), "--from", old, "--to", new, "--no-cache", *options])


def test_the_shipped_knowledge_declares_a_horizon_for_every_package(kb: KnowledgeBase) -> None:
    declared = read_knowledge().raw["horizon"]
    assert set(kb.packages()) <= set(declared)
    assert str(kb.horizon["torch"]) == "2.15.0"
    for entry in kb.entries:
        assert entry.introduced <= kb.horizon[entry.package], entry.id


@pytest.mark.parametrize(
    ("old", "new"), [("2.13.0", "2.17.0"), ("2.17.0", "2.13.0"), ("2.15.0", "2.15.1"), ("2.16.0", "2.17.0")]
)
def test_a_transition_past_the_horizon_is_a_medium_finding(tmp_path: Path, old: str, new: str) -> None:
    done = scan(tmp_path, old, new, "-f", "json")
    assert done.exit_code == 1, done.output  # the default --fail-on
    document = json.loads(done.stdout)
    assert document["horizon"]["torch"] == "2.15.0"
    (blind,) = [e for e in document["environment"] if e["kind"] == "beyond-knowledge"]
    assert blind["severity"] == "medium" and blind["package"] == "torch"
    assert f"torch {old} -> {new}: not reviewed past 2.15.0" in blind["message"]
    assert "torch: not reviewed past 2.15.0 (the knowledge base's horizon)" in document["notes"]
    assert scan(tmp_path, old, new, "--fail-on", "high").exit_code == 0


@pytest.mark.parametrize(("old", "new"), [("2.12.0", "2.15.0"), ("2.15.0", "2.13.0"), ("1.12.1", "1.13.0")])
def test_a_transition_inside_the_horizon_says_nothing_of_it(tmp_path: Path, old: str, new: str) -> None:
    document = json.loads(scan(tmp_path, old, new, "-f", "json").stdout)
    assert not [e for e in document["environment"] if e["kind"] == "beyond-knowledge"]
    assert not [n for n in document["notes"] if "not reviewed" in n]


def test_every_format_says_where_the_review_stops(tmp_path: Path) -> None:
    text = scan(tmp_path, "2.13.0", "2.17.0").stdout
    assert "note: torch: not reviewed past 2.15.0" in text
    assert "MEDIUM torch 2.13.0 -> 2.17.0: not reviewed past 2.15.0" in text
    markdown = scan(tmp_path, "2.13.0", "2.17.0", "-f", "markdown").stdout
    verdict = markdown.split("\n\n")[1]  # right after the heading
    assert "**Not reviewed past 2.15.0 (torch)**" in verdict
    sarif = json.loads(scan(tmp_path, "2.13.0", "2.17.0", "-f", "sarif").stdout)
    (run,) = sarif["runs"]
    notified = {n["descriptor"]["id"]: n for n in run["invocations"][0]["toolExecutionNotifications"]}
    assert notified["beyond-knowledge"]["level"] == "warning"
    assert "not reviewed past 2.15.0" in notified["beyond-knowledge"]["message"]["text"]
    assert run["properties"]["horizon"]["torch"] == "2.15.0"
    annotations = scan(tmp_path, "2.13.0", "2.17.0", "-f", "github").stdout
    assert "::warning title=auditor%3A beyond-knowledge::torch 2.13.0 -> 2.17.0: not reviewed past 2.15.0" in annotations


def test_a_moving_torch_family_package_without_knowledge_is_listed_and_not_reviewed(tmp_path: Path) -> None:
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("torch==2.3.1\ntorchaudio==2.3.1\ntorchvision==0.18.1\ntriton==2.3.1\nrequests==2.31.0\n")
    new.write_text("torch==2.7.0\ntorchaudio==2.7.0\ntorchvision==0.22.0\ntriton==3.3.0\nrequests==2.32.0\n")
    done = runner.invoke(app, ["compare", str(old), str(new), "--no-cache", "-f", "json"])
    document = json.loads(done.stdout)
    moved = {t["package"]: (t["from"], t["to"]) for t in document["transitions"]}
    assert moved["torchaudio"] == ("2.3.1", "2.7.0")
    assert "triton" not in moved and "requests" not in moved
    (blind,) = [e for e in document["environment"] if e["kind"] == "beyond-knowledge"]
    assert blind["package"] == "torchaudio" and "no reviewed entry for torchaudio" in blind["message"]
    assert done.exit_code == 1
    markdown = runner.invoke(app, ["compare", str(old), str(new), "--no-cache", "-f", "markdown"]).stdout
    assert "**Not reviewed (torchaudio)**" in markdown


def test_a_package_known_from_its_harvest_only_is_scanned_as_not_reviewed(tmp_path: Path) -> None:
    """`scan --package torchaudio`: no curated entry, but a shipped harvest. The scan runs as
    `compare` does for it: not reviewed (a medium finding, exit 1), its unchecked generated
    changes counted; a package the knowledge base has never seen stays a usage error."""
    (tmp_path / "m.py").write_text("import torchaudio\n", "utf-8")
    done = runner.invoke(app, ["scan", str(tmp_path), "--package", "torchaudio", "--from", "2.0.0", "--to", "2.5.0",
                               "--no-cache", "-f", "json"])
    assert done.exit_code == 1, done.stderr
    document = json.loads(done.stdout)
    (blind,) = [e for e in document["environment"] if e["kind"] == "beyond-knowledge"]
    assert blind["package"] == "torchaudio" and blind["severity"] == "medium"
    assert any("torchaudio 2.0.0 -> 2.5.0 also crosses" in n and "did not check" in n for n in document["notes"])
    unknown = runner.invoke(app, ["scan", str(tmp_path), "--package", "leftpad", "--from", "1.0", "--to", "2.0"])
    assert unknown.exit_code == 2 and "torchaudio from its harvest only" in unknown.stderr


def test_kb_list_of_a_transition_past_the_horizon_warns() -> None:
    listed = runner.invoke(app, ["kb", "list", "--from", "2.13.0", "--to", "2.17.0"])
    assert listed.exit_code == 0
    assert "auditor: warning: torch: not reviewed past 2.15.0" in listed.stderr


@pytest.fixture
def knowledge(tmp_path: Path) -> Path:
    copy = tmp_path / "knowledge"
    shutil.copytree(default_directory(), copy)
    return copy


def test_an_entry_past_the_horizon_is_a_knowledge_error(knowledge: Path) -> None:
    horizon = knowledge / "horizon.toml"
    horizon.write_text(horizon.read_text("utf-8").replace('release = "2.15.0"', 'release = "2.14.1"'), "utf-8")
    with pytest.raises(KnowledgeError) as raised:
        read_knowledge(knowledge)
    assert any("torch/2.15/" in p and "past the horizon 2.14.1" in p for p in raised.value.problems)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('[torch]\nrelease = "2.x"\nreviewed = "notes"\n', "torch.release: invalid version"),
        ('[torch]\nrelease = "2.15.0"\n', "torch: missing reviewed"),
        ('[torch]\nrelease = "2.15.0"\nreviewed = "notes"\nuntil = "3"\n', "torch: unknown key 'until'"),
        ('[Torch_Vision]\nrelease = "0.28.0"\nreviewed = "notes"\n', "canonical name"),
        ('torch = "2.15.0"\n', "torch: expected a table"),
    ],
)
def test_a_malformed_horizon_names_the_file(knowledge: Path, table: str, problem: str) -> None:
    (knowledge / "horizon.toml").write_text(table, "utf-8")
    with pytest.raises(KnowledgeError) as raised:
        read_knowledge(knowledge)
    assert any(p.startswith("knowledge/horizon.toml: ") and problem in p for p in raised.value.problems)
