"""A transform's `symbols` (which matched names it rewrites), `max_positional` (positional
arguments that would move) and the double-evaluation guard of templates."""

from __future__ import annotations

import textwrap

from auditor.knowledge.loader import parse_entry
from tests.fix.helpers import HEAD, entry, rewrite, tomllib

AUTOCAST = entry("""
    symbols = ["torch.cuda.amp.autocast", "torch.cpu.amp.autocast"]
    [[match]]
    call = "torch.cuda.amp.autocast"
    [[match]]
    call = "torch.cpu.amp.autocast"
    [[fix.adopt_new]]
    on = "call"
    action = "rename-call"
    to = "torch.amp.autocast"
    prepend = ["'cuda'"]
    symbols = ["torch.cuda.amp.autocast"]
    max_positional = 0
    [[fix.adopt_new]]
    on = "call"
    action = "rename-call"
    to = "torch.amp.autocast"
    prepend = ["'cpu'"]
    symbols = ["torch.cpu.amp.autocast"]
    max_positional = 0
""", introduced="2.4.0")


def test_symbols_pick_the_transform_of_each_matched_name() -> None:
    done = rewrite('''
        import torch
        with torch.cuda.amp.autocast(dtype=torch.float16):
            pass
        with torch.cpu.amp.autocast():
            pass
    ''', [AUTOCAST], "adopt-new")
    assert done.new_source == textwrap.dedent('''
        import torch
        with torch.amp.autocast('cuda', dtype=torch.float16):
            pass
        with torch.amp.autocast('cpu'):
            pass
    ''')
    assert len(done.applied) == 2


def test_a_symbol_no_transform_names_is_left_alone_with_a_reason() -> None:
    only_cuda = entry("""
        symbols = ["torch.cuda.amp.autocast", "torch.cpu.amp.autocast"]
        [[match]]
        call = "torch.cuda.amp.autocast"
        [[match]]
        call = "torch.cpu.amp.autocast"
        [[fix.adopt_new]]
        on = "call"
        action = "rename-call"
        to = "torch.amp.autocast"
        prepend = ["'cuda'"]
        symbols = ["torch.cuda.amp.autocast"]
    """, introduced="2.4.0")
    done = rewrite("import torch\nwith torch.cpu.amp.autocast():\n    pass\n", [only_cuda], "adopt-new")
    assert not done.applied
    (left,) = done.left_alone
    assert left.kind == "no-fix" and "torch.cpu.amp.autocast" in left.reason


def test_max_positional_refuses_a_call_whose_positional_arguments_would_move() -> None:
    done = rewrite('''
        import torch
        a = torch.cuda.amp.autocast(False)
        b = torch.cuda.amp.autocast(*flags)
        c = torch.cuda.amp.autocast(enabled=False)
    ''', [AUTOCAST], "adopt-new")
    assert "c = torch.amp.autocast('cuda', enabled=False)" in done.new_source
    assert "a = torch.cuda.amp.autocast(False)" in done.new_source
    assert sorted(x.kind for x in done.left_alone) == ["positional", "positional"]
    assert any("positional arguments would move" in x.reason for x in done.left_alone)


CLAMP = entry("""
    symbols = ["torch.clamp"]
    [[match]]
    call = "torch.clamp"
    [[fix.keep_old]]
    on = "call"
    action = "template"
    template = "{func}({args}).to({arg0}.dtype)"
""", introduced="1.12.0")


def test_a_template_repeating_a_call_argument_is_refused() -> None:
    done = rewrite('''
        import torch
        a = torch.clamp(model(x), min=0.5)
        b = torch.clamp(self.x[0], min=0.5)
    ''', [CLAMP])
    assert "a = torch.clamp(model(x), min=0.5)" in done.new_source
    assert "b = torch.clamp(self.x[0], min=0.5).to(self.x[0].dtype)" in done.new_source
    (left,) = done.left_alone
    assert left.kind == "double-evaluation" and "{arg0}" in left.reason


def test_repeating_an_operand_of_an_augmented_assignment_is_refused() -> None:
    floordiv = entry("""
        symbols = ["torch.Tensor.__ifloordiv__"]
        [[match]]
        operator = ["//", "//="]
        [[fix.keep_old]]
        on = "operator"
        action = "template"
        template = "torch.div({left}, {right}, rounding_mode='trunc')"
        augmented = "{left} = torch.div({left}, {right}, rounding_mode='trunc')"
    """)
    done = rewrite("import torch\nt = torch.zeros(3, 3)\nt[i] //= 2\nt[pick()] //= 2\n", [floordiv])
    assert "t[i] = torch.div(t[i], 2, rounding_mode='trunc')" in done.new_source
    assert "t[pick()] //= 2" in done.new_source
    assert [x.kind for x in done.left_alone] == ["double-evaluation"]


def test_max_positional_on_an_operator_is_a_problem_of_the_entry() -> None:
    text = HEAD.format(id="torch-x", introduced="1.13.0") + textwrap.dedent("""
        symbols = ["torch.Tensor.__floordiv__"]
        [[match]]
        operator = ["//", "//="]
        [[fix.keep_old]]
        on = "operator"
        action = "template"
        template = "torch.div({left}, {right}, rounding_mode='trunc')"
        max_positional = 1
    """)
    parsed, problems = parse_entry(tomllib.loads(text), "test.toml", text)
    assert parsed is None
    assert any("max_positional" in p for p in problems), problems


SIX = entry("""
    symbols = ["torch._six"]
    [[match]]
    module = "torch._six"
    [[fix.keep_old]]
    on = "import"
    action = "replace-import"
    symbols = ["torch._six.inf", "torch._six.nan"]
    module = "math"
""", introduced="2.0.0")


def test_an_import_transform_with_symbols_rewrites_only_imports_of_those_names() -> None:
    done = rewrite('''
        from torch._six import inf, nan
        from torch._six import inf, string_classes
        import torch._six as six
    ''', [SIX])
    assert done.new_source == textwrap.dedent('''
        from math import inf, nan
        from torch._six import inf, string_classes
        import torch._six as six
    ''')
    assert sorted(x.reason for x in done.left_alone) == [
        "imports string_classes from torch._six, which this fix does not cover",
        "imports the whole module; this fix covers some of its names only",
    ]


CLAMP_TWO_FORMS = entry("""
    symbols = ["torch.clamp"]
    [[match]]
    call = "torch.clamp"
    [[fix.keep_old]]
    on = "call"
    action = "template"
    template = "{func}({args}).to({arg0}.dtype)"
    [[fix.keep_old]]
    on = "call"
    action = "template"
    template = "(lambda input, *args, **kwargs: {func}(input, *args, **kwargs).to(input.dtype))({args})"
""", introduced="1.12.0")


def test_a_refused_transform_falls_back_to_the_next_one_that_fits() -> None:
    done = rewrite('''
        import torch
        a = torch.clamp(x, min=0.5)
        b = torch.clamp(model(x), min=0.5)
    ''', [CLAMP_TWO_FORMS])
    assert "a = torch.clamp(x, min=0.5).to(x.dtype)" in done.new_source
    assert ("b = (lambda input, *args, **kwargs: torch.clamp(input, *args, **kwargs).to(input.dtype))(model(x), min=0.5)"
            in done.new_source)
    assert len(done.applied) == 2 and not done.left_alone
    assert done.applied[1].transform.template is not None and "lambda" in done.applied[1].transform.template


def test_a_transform_whose_requires_fail_gives_way_to_the_next() -> None:
    from packaging.version import Version

    two = entry("""
        symbols = ["torch.cuda.amp.autocast"]
        [[match]]
        call = "torch.cuda.amp.autocast"
        [[fix.keep_old]]
        on = "call"
        action = "rename-call"
        to = "torch.amp.autocast"
        prepend = ["'cuda'"]
        requires = ">=1.12"
        [[fix.keep_old]]
        on = "call"
        action = "rename-call"
        to = "torch.autocast"
        prepend = ["'cuda'"]
        requires = ">=1.10"
    """, introduced="2.4.0")
    source = "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"
    old = rewrite(source, [two], versions={"torch": (Version("1.10.2"), Version("2.4.0"))})
    assert "torch.autocast('cuda')" in old.new_source
    new = rewrite(source, [two], versions={"torch": (Version("1.12.1"), Version("2.4.0"))})
    assert "torch.amp.autocast('cuda')" in new.new_source
    none = rewrite(source, [two], versions={"torch": (Version("1.8.0"), Version("2.4.0"))})
    assert not none.applied and none.left_alone[0].kind == "requires"


def test_an_empty_argument_list_drops_its_comma() -> None:
    up = entry("""
        symbols = ["torch.nn.UpsamplingNearest2d"]
        [[match]]
        call = "torch.nn.UpsamplingNearest2d"
        [[fix.keep_old]]
        on = "call"
        action = "template"
        template = "torch.nn.Upsample({args}, mode='nearest')"
    """, introduced="1.0.0")
    done = rewrite("import torch\na = torch.nn.UpsamplingNearest2d()\nb = torch.nn.UpsamplingNearest2d(None, 2)\n", [up])
    assert "a = torch.nn.Upsample(mode='nearest')" in done.new_source
    assert "b = torch.nn.Upsample(None, 2, mode='nearest')" in done.new_source


def test_min_positional_leaves_another_form_of_the_call_alone() -> None:
    sparse = entry("""
        symbols = ["torch.sparse.FloatTensor"]
        [[match]]
        call = "torch.sparse.FloatTensor"
        [[fix.adopt_new]]
        on = "call"
        action = "rename-call"
        to = "torch.sparse_coo_tensor"
        min_positional = 2
        max_positional = 3
    """, introduced="2.1.0")
    done = rewrite("import torch\na = torch.sparse.FloatTensor(i, v, size)\nc = torch.sparse.FloatTensor(i)\n", [sparse], "adopt-new")
    assert "a = torch.sparse_coo_tensor(i, v, size)" in done.new_source
    assert "c = torch.sparse.FloatTensor(i)" in done.new_source
    assert [x.kind for x in done.left_alone] == ["positional"]
    assert "at least 2" in done.left_alone[0].reason


def test_kwargs_keeps_the_keywords_of_a_call_whose_positionals_are_reordered() -> None:
    add = entry("""
        symbols = ["torch.add"]
        [[match]]
        call = "torch.add"
        min_positional = 3
        [[fix.adopt_new]]
        on = "call"
        action = "template"
        template = "{func}({arg0}, {arg2}, alpha={arg1}, {kwargs})"
        min_positional = 3
        max_positional = 3
    """, introduced="1.5.0")
    done = rewrite("import torch\na = torch.add(x, 2, y)\nb = torch.add(x, 2, y, out=z)\n", [add], "adopt-new")
    assert "a = torch.add(x, y, alpha=2)" in done.new_source
    assert "b = torch.add(x, y, alpha=2, out=z)" in done.new_source
