"""Notebooks: nbformat 4 and 3, IPython syntax, broken cells, outputs, cell numbering."""

import json
from pathlib import Path

import nbformat
import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import scan_project
from auditor.scan.notebook import NotebookError, blank_magics, code_cells

FLOOR = "torch-floor-divide-rounds-toward-floor"


def write_v4(path: Path, cells: list, source_as_list: bool = False) -> Path:
    notebook = nbformat.v4.new_notebook()
    for kind, source in cells:
        if kind == "code":
            cell = nbformat.v4.new_code_cell(source)
            cell.outputs = [nbformat.v4.new_output("stream", text="torch.floor_divide(t, 2) // 2\n")]
        elif kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(source)
        else:
            cell = nbformat.v4.new_raw_cell(source)
        notebook.cells.append(cell)
    data = json.loads(nbformat.writes(notebook))
    for cell in data["cells"]:  # nbformat writes lists; notebooks in the wild hold both forms
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        cell["source"] = text.splitlines(keepends=True) if source_as_list else text
    path.write_text(json.dumps(data), "utf-8")
    return path


def sites(kb: KnowledgeBase, path: Path) -> tuple[set, list]:
    findings, skipped = scan_project(path, [kb.get(FLOOR)])
    return {(f.cell, f.line) for f in findings}, [s.reason for s in skipped]


@pytest.mark.parametrize("source_as_list", [False, True])
def test_v4_cells_share_a_namespace_and_are_numbered_among_all_cells(
    kb: KnowledgeBase, tmp_path: Path, source_as_list: bool
) -> None:
    path = write_v4(tmp_path / "explore.ipynb", [
        ("markdown", "# Windows\ntorch.floor_divide(t, 2) in prose"),
        ("code", "import torch\nt = torch.arange(-4, 4)"),
        ("raw", "t // 2"),
        ("code", "%matplotlib inline\n!pip install torch\nfiles = !ls\nt?\nw = t // 2\nfor i in range(2):\n    %time t // 3"),
        ("code", "%%bash\necho $((7 // 2))\npython -c 't // 2'"),
        ("code", "%%time\nv = torch.floor_divide(t, 3)"),
    ], source_as_list)
    found, skipped = sites(kb, path)
    assert found == {(4, 5), (4, 7), (6, 2)}
    assert skipped == []


def test_a_cell_with_a_syntax_error_is_skipped_alone(kb: KnowledgeBase, tmp_path: Path) -> None:
    path = write_v4(tmp_path / "broken.ipynb", [
        ("code", "import torch\nt = torch.arange(-4, 4)"),
        ("code", "def broken(:\n    t // 2"),
        ("code", "u = t // 2"),
    ])
    found, skipped = sites(kb, path)
    assert found == {(3, 1)}
    assert skipped == ["cell 2, line 1: syntax error: invalid syntax"]


def test_nbformat_3_worksheets_use_input(kb: KnowledgeBase, tmp_path: Path) -> None:
    notebook = {
        "nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "old"},
        "worksheets": [
            {"cells": [
                {"cell_type": "heading", "level": 1, "source": ["Old notebook"]},
                {"cell_type": "code", "language": "python", "input": ["import torch\n", "t = torch.arange(-4, 4)"],
                 "outputs": [{"output_type": "stream", "text": ["t // 2"]}]},
            ]},
            {"cells": [
                {"cell_type": "markdown", "source": "t // 2"},
                {"cell_type": "code", "language": "python", "input": "x = t // 2", "outputs": []},
            ]},
        ],
    }
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(notebook), "utf-8")
    assert sites(kb, path) == ({(4, 1)}, [])


def test_outputs_are_never_scanned(kb: KnowledgeBase, tmp_path: Path) -> None:
    path = write_v4(tmp_path / "outputs.ipynb", [("code", "import torch\nprint('done')")])
    assert sites(kb, path) == (set(), [])


def test_a_file_that_is_not_a_notebook_is_skipped_with_a_reason(kb: KnowledgeBase, tmp_path: Path) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json", "utf-8")
    found, skipped = sites(kb, path)
    assert found == set()
    assert len(skipped) == 1 and "not valid notebook JSON" in skipped[0]
    with pytest.raises(NotebookError):
        code_cells("[]")


@pytest.mark.parametrize(("source", "expected"), [
    ("%%bash\nls", None),
    ("%%writefile x.py\nimport torch", None),
    ("%%capture out\nx = 1", "\nx = 1"),
    ("x = 1\n!ls -la\ny = 2", "x = 1\npass\ny = 2"),
    ("a, b = !ls\nc = a", "pass\nc = a"),
    ("!pip install \\\n    torch\nz = 1", "pass\n\nz = 1"),
    ("x = 5 % 3\ny = x != 2", "x = 5 % 3\ny = x != 2"),
    ("for i in r:\n    %time f(i)\n    %timeit -n 3 g()", "for i in r:\n    f(i)\n    pass"),
])
def test_blank_magics(source: str, expected: str | None) -> None:
    assert blank_magics(source) == expected
