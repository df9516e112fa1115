"""Notebooks are edited cell by cell in the raw JSON: outside the edited cells' sources every
byte stays, IPython lines come back as they were."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat

from auditor.fix.apply import rewrite_file
from auditor.knowledge.base import KnowledgeBase
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_file

FLOOR = "torch-floor-divide-rounds-toward-floor"


def _fix(kb: KnowledgeBase, notebook: Path) -> tuple[str, str]:
    entry = kb.get(FLOOR)
    findings, skipped = scan_file(notebook, notebook.name, RuleIndex.build([entry]))
    assert findings and not skipped
    done = rewrite_file(notebook.parent, notebook.name, findings, {entry.id: entry}, "keep-old")
    assert not done.left_alone and done.changed
    return done.old_text, done.new_text


def test_the_example_notebook_changes_in_one_source_line_only(kb: KnowledgeBase, examples: Path, tmp_path: Path) -> None:
    notebook = tmp_path / "explore.ipynb"
    shutil.copy(examples / "project" / "explore.ipynb", notebook)
    old, new = _fix(kb, notebook)
    assert old == notebook.read_text("utf-8")
    before = '"halves = positions // 2\\n",'
    after = '"halves = torch.div(positions, 2, rounding_mode=\'trunc\')\\n",'
    assert old.count(before) == 1
    assert new == old.replace(before, after)  # byte for byte everywhere else
    cells = json.loads(new)["cells"]
    assert json.loads(old)["cells"][2]["outputs"] == cells[2]["outputs"]


def test_magics_and_non_ascii_outputs_survive_a_notebook_nbformat_wrote(kb: KnowledgeBase, tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Größen"),
        nbformat.v4.new_code_cell("%load_ext autoreload\nimport torch\n!pip list | grep torch\nt = torch.arange(-4, 4)"),
        nbformat.v4.new_code_cell(
            "%%time\nfor step in range(2):\n    %time half = t // 2  # timed\n    print(step, half)",
            outputs=[nbformat.v4.new_output("stream", name="stdout", text="0 tensor([-2, -2, -1, -1,  0,  0,  1,  1]) — größe\n")],
            execution_count=2,
        ),
        nbformat.v4.new_code_cell("quarter = t // 4\n"),
    ]
    notebook = tmp_path / "magic.ipynb"
    nbformat.write(nb, str(notebook))
    old, new = _fix(kb, notebook)
    sources = {i: "".join(c["source"]) for i, c in enumerate(json.loads(new)["cells"])}
    assert sources[2] == (
        "%%time\nfor step in range(2):\n    %time half = torch.div(t, 2, rounding_mode='trunc')  # timed\n    print(step, half)"
    )
    assert sources[3] == "quarter = torch.div(t, 4, rounding_mode='trunc')\n"  # torch is bound by cell 2: no import added
    assert sources[1] == "".join(json.loads(old)["cells"][1]["source"])
    old_cells, new_cells = json.loads(old)["cells"], json.loads(new)["cells"]
    for o, n in zip(old_cells, new_cells):
        assert {k: v for k, v in o.items() if k != "source"} == {k: v for k, v in n.items() if k != "source"}
    # outside the two edited lines, the text is the same bytes
    expected = old.replace(
        '"    %time half = t // 2  # timed\\n",', '"    %time half = torch.div(t, 2, rounding_mode=\'trunc\')  # timed\\n",'
    ).replace('"quarter = t // 4\\n"', '"quarter = torch.div(t, 4, rounding_mode=\'trunc\')\\n"')
    assert expected != old and new == expected
    assert nbformat.reads(new, as_version=4).cells[2].outputs == nb.cells[2].outputs
