"""`auditor kb new` in a copy of the knowledge tree: the entry it writes is refused until filled
in, naming the file and each field; filled in, it loads and its fixtures are collected."""

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.errors import KnowledgeError
from auditor.knowledge.folders import fixtures
from auditor.knowledge.loader import load_entries
from auditor.scan import scan_project
from tests.scan.test_entry_fixtures import KNOWLEDGE, expected_lines, fixture_folders

FILLED = '''id = "torch-lerp-example-changed"
package = "torch"
introduced = "2.15.0"
kind = "behaviour"
severity = "medium"
silent = true
title = "torch.lerp gives another result on the example"
symbols = ["torch.lerp"]
references = ["https://github.com/pytorch/pytorch/releases/tag/v2.15.0"]

[[match]]
call = "torch.lerp"

[docs]
what = "An example change written by the scaffold test, filled in by hand."
why = "It shows that a filled-in scaffold is an entry like any other one."
before = "torch.lerp(a, b, 0.5)"
keep_old = "a + 0.5 * (b - a)"
adopt_new = "torch.lerp(a, b, 0.5)"
'''


@pytest.fixture()
def knowledge(tmp_path: Path) -> Path:
    copy = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, copy)
    return copy


def new(knowledge: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(app, ["kb", "new", *args, "--knowledge", str(knowledge)])
    return done.exit_code, done.output


def test_kb_new_is_refused_until_filled_in_then_loads_with_its_fixtures(knowledge: Path) -> None:
    code, output = new(knowledge, "torch", "2.15.0", "lerp-example-changed")
    folder = knowledge / "torch" / "2.15" / "lerp-example-changed"
    assert code == 0, output
    assert output.strip() == str(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["change.toml", "negative.py", "positive.py"]

    with pytest.raises(KnowledgeError) as refused:
        load_entries(knowledge)
    problems = refused.value.problems
    where = "knowledge/torch/2.15/lerp-example-changed/change.toml"
    fields = ["kind", "severity", "silent", "title", "symbols[0]", "references[0]", "match[0].call",
              "docs.what", "docs.why", "docs.before", "docs.keep_old", "docs.adopt_new"]
    assert all(p.startswith(f"{where}: ") and ": still to fill in (FILL_IN: " in p for p in problems), problems
    assert sorted(p.split(": ")[1] for p in problems) == sorted(fields)

    (folder / "change.toml").write_text(FILLED, "utf-8")
    (folder / "positive.py").write_text("import torch\n\nx = torch.lerp(a, b, 0.5)  # expect\n", "utf-8")
    (folder / "negative.py").write_text("import numpy\n\nx = numpy.lerp(a, b, 0.5)\n", "utf-8")
    entry = next(e for e in load_entries(knowledge) if e.id == "torch-lerp-example-changed")
    assert fixture_folders(knowledge)[entry.id] == folder
    [positive] = fixtures(folder, "positive")
    findings, _ = scan_project(positive, [entry])
    assert {(f.cell, f.line) for f in findings} == expected_lines(positive) == {(None, 3)}
    [negative] = fixtures(folder, "negative")
    assert scan_project(negative, [entry])[0] == []


@pytest.mark.parametrize(("args", "says"), [
    (("torch", "2.15.0", "floor-divide-rounds-toward-floor"), None),  # 1.13 holds it, 2.15 does not
    (("torch", "1.13.0", "floor-divide-rounds-toward-floor"), "already exists"),
    (("torch", "two", "x-y"), "not a version"),
    (("torch", "2.15.0", "Bad_Stem"), "lower-case words joined by dashes"),
    (("Torch", "2.15.0", "x-y"), "lower-case letters"),
])
def test_kb_new_refuses_what_it_cannot_write(knowledge: Path, args: tuple[str, ...], says: str | None) -> None:
    code, output = new(knowledge, *args)
    if says is None:
        assert code == 0, output
        return
    assert code == 2 and says in output and "Traceback" not in output, output
