"""Names are resolved when first looked up: chains in any order and any length, no cycles left."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.pipeline import scan_changes
from auditor.scan.names import Resolver
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_file, scan_source

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def index() -> RuleIndex:
    return RuleIndex.build(scan_changes(KnowledgeBase.load(), "torch", "1.12.1", "1.13.0"))


def floor_lines(source: str, index: RuleIndex) -> list[int]:
    return sorted(f.line for f in scan_source(source, "m.py", index) if f.change == "torch-floor-divide-rounds-toward-floor")


def test_a_parameter_is_a_tensor_through_callers_that_get_it_from_their_callers(index: RuleIndex) -> None:
    source = (
        "import torch\n"
        "def outer(n):\n"
        "    ids = torch.arange(-n, n)\n"
        "    return middle(ids)\n"
        "def middle(ids):\n"
        "    return inner(ids) + 1\n"
        "def inner(ids):\n"
        "    return ids // 4\n"
    )
    assert floor_lines(source, index) == [8]
    # one caller passing something else: the parameter is not known to be a tensor
    assert floor_lines(source + "inner(7)\n", index) == []


def test_a_name_used_before_its_assignment_in_the_text(index: RuleIndex) -> None:
    source = "import torch\ndef steps():\n    return STEPS // 2\nSTEPS = torch.arange(-10, 10)\n"
    assert floor_lines(source, index) == [3]


def test_a_name_that_reads_itself_keeps_its_tag(index: RuleIndex) -> None:
    source = (
        "import torch\n"
        "def f(n):\n"
        "    h = torch.arange(-n, n)\n"
        "    for _ in range(3):\n"
        "        h = h * 2\n"
        "    return h // 2\n"
    )
    assert floor_lines(source, index) == [6]


@pytest.mark.parametrize("length", [10, 500, 3000])
def test_long_chains_of_names_resolve_without_exhausting_the_stack(index: RuleIndex, length: int) -> None:
    lines = ["import torch", "def f():", "    a0 = torch.arange(-10, 10)"]
    lines += [f"    a{i} = a{i - 1} + 1" for i in range(1, length)]
    lines += [f"    return a{length - 1} // 2"]
    assert floor_lines("\n".join(lines), index) == [length + 3]


def test_a_long_chain_written_backwards_is_left_unknown_not_skipped(index: RuleIndex, tmp_path: Path) -> None:
    length = 600
    lines = ["import torch", "def f():", f"    b = a{length - 1} // 2"]
    lines += [f"    a{i} = a{i - 1} + 1" for i in range(length - 1, 0, -1)]
    lines += ["    a0 = torch.arange(-10, 10)", "    c = a0 // 2"]
    module = tmp_path / "backwards.py"
    module.write_text("\n".join(lines) + "\n")
    findings, skipped = scan_file(module, "backwards.py", index)
    assert skipped == []
    # beyond the depth the resolver follows, `b` stays unknown; the rest of the file is read
    assert [f.line for f in findings if f.symbol == "torch.Tensor.__floordiv__"] == [length + 4]


def test_the_analysis_leaves_no_reference_cycles(index: RuleIndex) -> None:
    """The scanner turns the cycle collector off while it reads a file (see scanner.py): that is
    only right while the syntax tree and the analysis free themselves by reference counting."""
    sources = [p.read_text("utf-8") for p in sorted((ROOT / "examples" / "project").rglob("*.py"))]
    sources.append((ROOT / "auditor" / "scan" / "names.py").read_text("utf-8"))
    assert any(scan_source(s, "m.py", index) for s in sources)  # the sources are analysed, not filtered out
    gc.collect()
    gc.disable()
    try:
        for source in sources:
            scan_source(source, "m.py", index)
        left = gc.collect()
    finally:
        gc.enable()
    assert left == 0


def test_a_qualified_lookup_reads_no_tag_an_alias_cannot_hold() -> None:
    """`residual = hidden` can alias nothing when `hidden` is a parameter: asking whether
    `residual` names a module's function leaves its bindings (and `hidden`'s) unread."""
    tree = ast.parse("import torch\ndef f(hidden):\n    residual = hidden\n    return residual + torch.ones(1)\n")
    resolver = Resolver(tree)
    function = resolver.scope_of(tree.body[1])
    read = next(n for n in ast.walk(tree.body[1]) if isinstance(n, ast.Name) and n.id == "residual"
                and isinstance(n.ctx, ast.Load))
    assert resolver.qualified(read, function) is None
    assert {"residual", "hidden"} <= function.unread
    assert resolver.asked == set()
    # the same read through an alias of a module's function resolves it
    aliased = ast.parse("import torch\ndef f():\n    op = torch.floor_divide\n    return op\n")
    resolver = Resolver(aliased)
    function = resolver.scope_of(aliased.body[1])
    returned = aliased.body[1].body[-1].value  # type: ignore[attr-defined]
    assert resolver.qualified(returned, function) == "torch.floor_divide"
