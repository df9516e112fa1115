"""replace-module: a name that moved to another module. The import line is rewritten where
the site reaches the name through it (aliases kept, multi-name imports split only where names
go to different modules), the site itself where it reaches it through an import above it; in
notebooks the import cell is rewritten for the sites of other cells."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import nbformat

from auditor.fix.apply import rewrite_file
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_file
from tests.fix.helpers import entry, rewrite

FUNC = entry("""
    symbols = ["torch.func.vmap", "torch.func.grad", "torch.func.functional_call"]
    [[match]]
    call = "torch.func.vmap"
    [[match]]
    call = "torch.func.grad"
    [[match]]
    call = "torch.func.functional_call"
    [[fix.keep_old]]
    on = "call"
    action = "replace-module"
    module = "torch.func"
    to = "functorch"
    symbols = ["torch.func.vmap", "torch.func.grad"]
""", introduced="2.0.0")

SIX = entry("""
    symbols = ["torch._six.container_abcs", "torch._six.string_classes"]
    [[match]]
    call = "torch._six.container_abcs"
    [[match]]
    call = "torch._six.string_classes"
    [[fix.keep_old]]
    on = "attribute"
    action = "replace-module"
    module = "torch._six.container_abcs"
    to = "collections.abc"
    [[fix.keep_old]]
    on = "attribute"
    action = "replace-module"
    module = "torch._six.string_classes"
    to = "builtins:str"
""", introduced="1.9.0")


def test_from_imports_move_with_their_aliases_and_split_only_where_names_go_elsewhere() -> None:
    done = rewrite('''
        import torch
        from torch.func import vmap, grad as g, functional_call  # transforms
        vmap(f)
        g(f)
        functional_call(m, p, x)
    ''', [FUNC])
    assert done.new_source == textwrap.dedent('''
        import torch
        from torch.func import functional_call  # transforms
        from functorch import vmap, grad as g
        vmap(f)
        g(f)
        functional_call(m, p, x)
    ''')
    assert len(done.applied) == 2
    [left] = done.left_alone
    assert left.kind == "no-fix" and "torch.func.functional_call" in left.reason


def test_a_from_import_of_moved_names_only_is_rewritten_in_place_keeping_its_layout() -> None:
    done = rewrite('''
        from torch.func import (
            vmap,  # batched
            grad,
        )
        vmap(grad(f))
    ''', [FUNC])
    assert done.new_source == textwrap.dedent('''
        from functorch import (
            vmap,  # batched
            grad,
        )
        vmap(grad(f))
    ''')


def test_module_aliases_move_and_dotted_sites_are_renamed() -> None:
    done = rewrite('''
        import torch
        import torch.func
        import torch.func as tf
        from torch import func
        tf.vmap(f)
        func.grad(f)
        torch.func.grad(f)
    ''', [FUNC])
    assert done.new_source == textwrap.dedent('''
        import functorch
        import torch
        import functorch as tf
        import functorch as func
        tf.vmap(f)
        func.grad(f)
        functorch.grad(f)
    ''')  # `import torch.func` went: nothing refers through it any more, and `import torch` is there
    assert len(done.applied) == 3 and not done.left_alone
    ast.parse(done.new_source)


def test_import_torch_func_stays_while_something_still_refers_through_it() -> None:
    done = rewrite('''
        import torch.func
        torch.func.vmap(f)
        torch.func.functional_call(m, p, x)
    ''', [FUNC])
    assert done.new_source == textwrap.dedent('''
        import functorch
        import torch.func
        functorch.vmap(f)
        torch.func.functional_call(m, p, x)
    ''')


def test_a_module_alias_used_for_a_name_the_fix_does_not_move_is_left_alone() -> None:
    done = rewrite('''
        import torch.func as tf
        tf.vmap(f)
        tf.functional_call(m, p, x)
    ''', [FUNC])
    assert done.new_source == textwrap.dedent('''
        import torch.func as tf
        tf.vmap(f)
        tf.functional_call(m, p, x)
    ''')
    kinds = {(x.finding.symbol, x.kind) for x in done.left_alone}
    assert ("torch.func.vmap", "import-form") in kinds
    [why] = [x.reason for x in done.left_alone if x.finding.symbol == "torch.func.vmap"]
    assert why == "tf.functional_call is used too, and torch.func.functional_call is not one of the names this fix moves"


def test_a_name_imported_twice_or_through_a_star_is_left_alone() -> None:
    done = rewrite('''
        try:
            from torch.func import vmap
        except ImportError:
            from functorch import vmap
        vmap(f)
    ''', [FUNC])
    [left] = done.left_alone
    assert left.kind == "import-form" and "imported more than once" in left.reason
    assert "from torch.func import vmap" in done.new_source and not done.applied
    done = rewrite('''
        from torch.func import *
        vmap(f)
    ''', [FUNC])
    [left] = done.left_alone
    assert left.reason == "vmap is not imported by name here (a star import from torch.func)"


def test_a_name_moved_to_an_object_in_another_module_is_imported_from_it() -> None:
    done = rewrite('''
        import torch
        from torch._six import container_abcs, string_classes as strings
        isinstance(x, container_abcs.Mapping)
        isinstance(x, strings)
        isinstance(x, torch._six.container_abcs.Sequence)
    ''', [SIX], min_confidence="low")
    assert done.new_source == textwrap.dedent('''
        import collections.abc
        import torch
        from collections import abc as container_abcs
        from builtins import str as strings
        isinstance(x, container_abcs.Mapping)
        isinstance(x, strings)
        isinstance(x, collections.abc.Sequence)
    ''')
    namespace: dict[str, object] = {"x": {}}
    exec(done.new_source.replace("import torch\n", ""), namespace)  # the new imports bind what the sites use
    assert namespace["strings"] is str and namespace["container_abcs"] is __import__("collections.abc").abc


def test_import_lines_in_one_cell_move_for_sites_in_other_cells(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%matplotlib inline\nimport torch\nfrom torch.func import vmap, functional_call"),
        nbformat.v4.new_markdown_cell("batched:"),
        nbformat.v4.new_code_cell("out = vmap(f)(x)", outputs=[nbformat.v4.new_output("stream", name="stdout", text="ok\n")],
                                  execution_count=3),
    ]
    notebook = tmp_path / "moves.ipynb"
    nbformat.write(nb, str(notebook))
    findings, skipped = scan_file(notebook, notebook.name, RuleIndex.build([FUNC]))
    assert [f.cell for f in findings] == [3] and not skipped
    done = rewrite_file(tmp_path, notebook.name, findings, {FUNC.id: FUNC}, "keep-old")
    assert len(done.applied) == 1 and not done.left_alone
    cells = json.loads(done.new_text)["cells"]
    assert "".join(cells[0]["source"]) == (
        "%matplotlib inline\nimport torch\nfrom torch.func import functional_call\nfrom functorch import vmap"
    )
    assert "".join(cells[2]["source"]) == "out = vmap(f)(x)" and cells[2]["outputs"] == json.loads(done.old_text)["cells"][2]["outputs"]
    assert [c[0] for c in done.cells] == [1]


def test_a_plain_import_of_the_moved_module_is_replaced_where_nothing_else_uses_it() -> None:
    back = entry("""
        symbols = ["functorch.vmap", "functorch.make_functional"]
        [[match]]
        call = "functorch.vmap"
        [[match]]
        call = "functorch.make_functional"
        [[fix.adopt_new]]
        on = "call"
        action = "replace-module"
        module = "functorch"
        to = "torch.func"
        symbols = ["functorch.vmap"]
    """, introduced="2.0.0")
    done = rewrite('''
        """A module docstring."""
        import functorch
        out = functorch.vmap(f)(x)
    ''', [back], "adopt-new")
    assert done.new_source == textwrap.dedent('''
        """A module docstring."""
        import torch.func
        out = torch.func.vmap(f)(x)
    ''')
    done = rewrite('''
        import functorch
        out = functorch.vmap(f)(x)
        model = functorch.make_functional(m)
    ''', [back], "adopt-new")
    assert done.new_source == textwrap.dedent('''
        import torch.func
        import functorch
        out = torch.func.vmap(f)(x)
        model = functorch.make_functional(m)
    ''')  # functorch is still used: its import stays


def test_imports_inside_functions_and_on_one_line_with_other_statements_move() -> None:
    done = rewrite('''
        def f():
            from torch.func import (
                vmap,
                functional_call,
            )
            import torch.func as tf; x = 1
            return vmap(g), tf.grad(h)
    ''', [FUNC])
    assert done.new_source == textwrap.dedent('''
        def f():
            from torch.func import functional_call
            from functorch import vmap
            import functorch as tf; x = 1
            return vmap(g), tf.grad(h)
    ''')


def test_an_import_finding_moves_the_names_of_its_statement_under_the_moved_one() -> None:
    imports = entry("""
        symbols = ["torch._six"]
        [[match]]
        module = "torch._six"
        [[fix.keep_old]]
        on = "import"
        action = "replace-module"
        module = "torch._six.container_abcs"
        to = "collections.abc"
    """, introduced="2.0.0")
    done = rewrite('''
        from torch._six import container_abcs, inf
        import torch._six as six
    ''', [imports], min_confidence="low")
    assert done.new_source == textwrap.dedent('''
        from torch._six import inf
        from collections import abc as container_abcs
        import torch._six as six
    ''')
    [left] = done.left_alone
    assert (left.finding.line, left.kind) == (3, "import-form")
    assert left.reason == "binds nothing under torch._six.container_abcs that an import line can move"
