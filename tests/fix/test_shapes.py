"""The scanner records what its matcher saw at each finding (`Finding.shape`, JSON `shape`):
what `fix` chooses a transform by."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from auditor.fix.apply import findings_in_source, rewrite_file
from auditor.knowledge.base import KnowledgeBase
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_file
from tests.fix.helpers import entry


def test_each_site_kind_has_its_shape(kb: KnowledgeBase) -> None:
    changes = [
        entry('symbols = ["torch.load"]\n[[match]]\ncall = "torch.load"\n', id="torch-a-call"),
        entry('symbols = ["torch.nn.Module"]\n[[match]]\ncall = "torch.nn.Module"\n', id="torch-a-class"),
        entry('symbols = ["torch._six"]\n[[match]]\nmodule = "torch._six"\n', id="torch-a-module"),
        entry('symbols = ["torch.jit.script"]\n[[match]]\ncall = "torch.jit.script"\n', id="torch-a-decorator"),
        kb.get("torch-floor-divide-rounds-toward-floor"),
        kb.get("torch-tensor-data-int-on-requires-grad-raises"),
    ]
    source = textwrap.dedent('''
        import functools
        import torch
        from torch._six import inf

        load = functools.partial(torch.load, map_location="cpu")
        state = torch.load("a.pt")
        loader = torch.load


        class Net(torch.nn.Module):
            pass


        @torch.jit.script
        def f(x: torch.Tensor) -> torch.Tensor:
            return x


        t = torch.arange(-4, 4)
        h = t // 2
        t.floor_divide_(2)
        w = torch.zeros(3, requires_grad=True)
        w.data = torch.tensor([1, 2, 3])
    ''')
    shapes = {(f.line, f.shape) for f in findings_in_source(source, changes)}
    assert {
        (4, "import"), (6, "partial"), (7, "call"), (8, "attribute"), (11, "class"), (15, "decorator"),
        (21, "operator"), (22, "method"), (24, "assign"),
    } <= shapes


def test_a_notebook_of_nbformat_3_is_edited_in_its_worksheet(kb: KnowledgeBase, tmp_path: Path) -> None:
    floor = kb.get("torch-floor-divide-rounds-toward-floor")
    text = json.dumps({
        "metadata": {"name": ""}, "nbformat": 3, "nbformat_minor": 0,
        "worksheets": [{"cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# old"]},
            {"cell_type": "code", "collapsed": False, "input": ["import torch\n", "h = torch.arange(-4, 4) // 2"],
             "language": "python", "metadata": {}, "outputs": [], "prompt_number": 1},
        ], "metadata": {}}],
    }, indent=1)
    (tmp_path / "old.ipynb").write_text(text)
    findings, _ = scan_file(tmp_path / "old.ipynb", "old.ipynb", RuleIndex.build([floor]))
    done = rewrite_file(tmp_path, "old.ipynb", findings, {floor.id: floor}, "keep-old")
    assert done.new_text == text.replace(
        '"h = torch.arange(-4, 4) // 2"', '"h = torch.div(torch.arange(-4, 4), 2, rounding_mode=\'trunc\')"'
    )
