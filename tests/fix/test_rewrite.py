"""rewrite_source on real sources, with the real scanner's findings: each action, comments and
layout kept, and every site left alone says why."""

from __future__ import annotations

import textwrap

from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase
from tests.fix.helpers import entry, rewrite

LOAD = entry("""
    symbols = ["torch.load"]
    [[match]]
    call = "torch.load"
    keyword_absent = ["weights_only"]
    [[fix.keep_old]]
    on = "call"
    action = "set-keyword"
    keyword = "weights_only"
    value = "False"
    requires = ">=1.13"
""", introduced="2.6.0")


def test_set_keyword_keeps_comments_and_the_one_argument_a_line_layout() -> None:
    done = rewrite('''
        import torch

        state = torch.load(path)  # the checkpoint
        model = torch.load(
            path,  # where it is
            map_location="cpu",
        )
    ''', [LOAD])
    assert done.new_source == textwrap.dedent('''
        import torch

        state = torch.load(path, weights_only=False)  # the checkpoint
        model = torch.load(
            path,  # where it is
            map_location="cpu",
            weights_only=False,
        )
    ''')
    assert len(done.applied) == 2 and not done.left_alone


def test_set_keyword_leaves_a_kwargs_spread_alone_and_replace_overwrites() -> None:
    done = rewrite('''
        import torch
        a = torch.load(path, **options)
    ''', [LOAD], min_confidence="low")  # the scanner already lowers its confidence
    assert done.new_source.endswith("a = torch.load(path, **options)\n")
    [left] = done.left_alone
    assert (left.kind, left.reason) == ("kwargs-spread", "a **kwargs spread may already hold weights_only=")


def test_keyword_already_given_is_left_alone_unless_replace() -> None:
    # a matcher without keyword_absent, so the call with the keyword is a finding too
    body = """
        symbols = ["torch.load"]
        [[match]]
        call = "torch.load"
        [[fix.keep_old]]
        on = "call"
        action = "set-keyword"
        keyword = "weights_only"
        value = "False"
        {replace}
    """
    source = "import torch\na = torch.load(p, weights_only=True)\n"
    kept = rewrite(source, [entry(body.format(replace=""))])
    assert kept.new_source == source
    assert [(x.kind, x.reason) for x in kept.left_alone] == [("keyword-given", "the call already gives weights_only=")]
    replaced = rewrite(source, [entry(body.format(replace="replace = true"))])
    assert replaced.new_source == "import torch\na = torch.load(p, weights_only=False)\n"


def test_requires_is_checked_on_both_ends_for_keep_old() -> None:
    source = "import torch\na = torch.load(p)\n"
    old = {"torch": (Version("1.12.1"), Version("2.6.0"))}
    done = rewrite(source, [LOAD], versions=old)
    assert done.new_source == source
    assert [(x.kind, x.reason) for x in done.left_alone] == [
        ("requires", "the rewrite needs torch>=1.13, which 1.12.1 is not")
    ]
    assert rewrite(source, [LOAD], versions={"torch": (Version("2.5.1"), Version("2.6.0"))}).applied


def test_rename_call_with_a_leading_argument_adds_the_import() -> None:
    autocast = entry("""
        symbols = ["torch.cuda.amp.autocast"]
        [[match]]
        call = "torch.cuda.amp.autocast"
        [[fix.adopt_new]]
        on = "call"
        action = "rename-call"
        to = "torch.amp.autocast"
        prepend = ["'cuda'"]
    """)
    done = rewrite('''
        """Training loop."""
        from torch.cuda.amp import autocast


        def step(model, x):
            with autocast(enabled=True):  # mixed precision
                return model(x)
    ''', [autocast], "adopt-new")
    assert done.new_source == textwrap.dedent('''
        """Training loop."""
        import torch
        from torch.cuda.amp import autocast


        def step(model, x):
            with torch.amp.autocast('cuda', enabled=True):  # mixed precision
                return model(x)
    ''')


def test_replace_import_and_replace_attribute() -> None:
    six = entry("""
        symbols = ["torch._six"]
        [[match]]
        module = "torch._six"
        [[fix.keep_old]]
        on = "import"
        action = "replace-import"
        module = "math"
    """, id="torch-six-removed")
    has_cuda = entry("""
        symbols = ["torch.has_cuda"]
        [[match]]
        call = "torch.has_cuda"
        [[fix.keep_old]]
        on = "attribute"
        action = "replace-attribute"
        to = "torch.backends.cuda.is_built()"
    """, id="torch-has-cuda-deprecated")
    done = rewrite('''
        import torch
        from torch._six import inf  # the old place
        import torch._six

        limit = inf if torch.has_cuda else 0
    ''', [six, has_cuda], min_confidence="medium")  # a reference that is no call is medium at most
    assert done.new_source == textwrap.dedent('''
        import torch
        from math import inf  # the old place
        import torch._six

        limit = inf if torch.backends.cuda.is_built() else 0
    ''')
    [left] = done.left_alone
    assert left.kind == "import-form" and left.finding.line == 4


def test_no_fix_and_below_confidence_reasons(kb: KnowledgeBase) -> None:
    data = kb.get("torch-tensor-data-int-on-requires-grad-raises")
    floor = kb.get("torch-floor-divide-rounds-toward-floor")
    done = rewrite('''
        import torch

        def f(w: torch.Tensor, x) -> None:
            w.data = torch.tensor([1, 2])
            y = x.floor_divide(2)
    ''', [data, floor])
    reasons = {x.finding.change: (x.kind, x.reason) for x in done.left_alone}
    assert reasons[data.id] == ("no-fix", "no mechanical fix for this change with --keep-old")
    kind, reason = reasons[floor.id]  # x is of unknown type: a low-confidence method call
    assert kind == "below-confidence" and "ambiguous receiver" in reason
    assert done.new_source.count("floor_divide") == 1


def test_keyword_placeholder_missing_is_left_alone(kb: KnowledgeBase) -> None:
    overflow = kb.get("torch-tensor-int-overflow-raises")
    done = rewrite('''
        import torch
        a = torch.tensor(300, dtype=torch.int8)  # wraps
        b = torch.tensor([1, 300], dtype=torch.uint8)
        c = torch.tensor(300, dtype=torch.int8, device="cpu")
    ''', [overflow])
    assert "a = torch.tensor(300).to(torch.int8)  # wraps" in done.new_source
    assert "b = torch.tensor([1, 300]).to(torch.uint8)" in done.new_source
    assert 'c = torch.tensor(300, dtype=torch.int8, device="cpu")' in done.new_source  # device= is not a proven shape
    assert [x.kind for x in done.left_alone] == ["unproven-shape"]


def test_a_column_after_non_ascii_text_is_found(kb: KnowledgeBase) -> None:
    floor = kb.get("torch-floor-divide-rounds-toward-floor")
    done = rewrite('''
        import torch
        t = torch.arange(-4, 4)
        label = "größe"; half = t // 2
    ''', [floor])
    assert "label = \"größe\"; half = torch.div(t, 2, rounding_mode='trunc')" in done.new_source
    assert not done.left_alone


def test_every_floor_division_form_keeps_truncating_on_the_installed_torch(kb: KnowledgeBase) -> None:
    """Nested, chained, parenthesised, reflected, in-place and augmented forms, rewritten with
    --keep-old and run on torch 2.13 (which floors): the values are the truncated quotients."""
    floor = kb.get("torch-floor-divide-rounds-toward-floor")
    done = rewrite('''
        import torch

        a = torch.tensor([-7, -3, 5])
        b = torch.tensor([2, 2, -3])
        results = {
            "nested": torch.floor_divide(a // 2, b),  # inner and outer
            "chained": a // 2 // b,
            "sum": (a + 1) // 2,
            "reflected": 7 // b,
            "method": (a - 1).floor_divide(2),
        }
        c = a.clone()
        c.floor_divide_(2)
        results["inplace"] = c
        d = a.clone()
        d //= 3  # augmented
        results["augmented"] = d
    ''', [floor])
    assert "//" not in done.new_source.replace("# inner", "") and "floor_divide" not in done.new_source
    assert not done.left_alone, done.left_alone
    assert "c.div_(2, rounding_mode='trunc')" in done.new_source
    assert "d.div_(3, rounding_mode='trunc')  # augmented" in done.new_source
    scope: dict[str, object] = {}
    exec(compile(done.new_source, "<rewritten>", "exec"), scope)  # noqa: S102 - our own rewrite of our own source
    results = {k: v.tolist() for k, v in scope["results"].items()}  # type: ignore[attr-defined]

    def trunc(x: int, y: int) -> int:
        return int(x / y)

    a, b = [-7, -3, 5], [2, 2, -3]
    assert results == {
        "nested": [trunc(trunc(x, 2), y) for x, y in zip(a, b)],
        "chained": [trunc(trunc(x, 2), y) for x, y in zip(a, b)],
        "sum": [trunc(x + 1, 2) for x in a],
        "reflected": [trunc(7, y) for y in b],
        "method": [trunc(x - 1, 2) for x in a],
        "inplace": [trunc(x, 2) for x in a],
        "augmented": [trunc(x, 3) for x in a],
    }


def test_windows_line_endings_and_an_edited_file_are_handled(kb: KnowledgeBase, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from auditor.fix.apply import findings_in_source, rewrite_file

    floor = kb.get("torch-floor-divide-rounds-toward-floor")
    source = "import torch\r\nt = torch.arange(-4, 4)\r\nhalf = t // 2  # note\r\n"
    (tmp_path / "m.py").write_bytes(source.encode())
    findings = findings_in_source(source.replace("\r\n", "\n"), [floor], "m.py")
    done = rewrite_file(tmp_path, "m.py", findings, {floor.id: floor}, "keep-old")
    assert done.new_text == "import torch\r\nt = torch.arange(-4, 4)\r\nhalf = torch.div(t, 2, rounding_mode='trunc')  # note\r\n"
    # the file changed since the scan: the site is not where the finding says
    (tmp_path / "m.py").write_bytes(b"import torch\r\n\r\nt = torch.arange(-4, 4)\r\nhalf = t // 2\r\n")
    moved = rewrite_file(tmp_path, "m.py", findings, {floor.id: floor}, "keep-old")
    assert not moved.changed
    assert [(x.kind, x.reason) for x in moved.left_alone] == [
        ("not-found", "no operator at line 3, column 8 (edited since the scan?)")
    ]


def test_set_keyword_in_other_layouts() -> None:
    cases = {
        "torch.load()": "torch.load(weights_only=False)",
        "torch.load(path,)": "torch.load(path, weights_only=False,)",
        "torch.load(\n    path\n)": "torch.load(\n    path, weights_only=False\n)",
    }
    for old, new in cases.items():
        assert rewrite(f"import torch\na = {old}\n", [LOAD]).new_source == f"import torch\na = {new}\n"


def test_a_source_nested_deeper_than_libcst_reads_is_left_alone_not_a_crash() -> None:
    done = rewrite("import torch\nx = " + "[" * 150 + "torch.load(p)" + "]" * 150 + "\n", [LOAD])
    assert not done.applied
    [left] = done.left_alone
    assert left.kind == "unparsable" and left.reason.startswith("libcst cannot read this source")


def test_keep_old_on_a_downgrade_keeps_the_changes_new_behaviour(kb: KnowledgeBase) -> None:
    """2.13.0 -> 1.12.1 crosses out of the floor change: keeping the old (2.13) behaviour means
    flooring, which the rewrite must do on 1.12 as the original does on 2.13."""
    floor = kb.get("torch-floor-divide-rounds-toward-floor")
    source = "import torch\na = torch.tensor([-7, -3, 5])\nresult = (a // 2).tolist()\n"
    down = {"torch": (Version("2.13.0"), Version("1.12.1"))}
    done = rewrite(source, [floor], versions=down)
    assert "torch.div(a, 2, rounding_mode='floor')" in done.new_source
    original: dict[str, object] = {}
    rewritten: dict[str, object] = {}
    exec(compile(source, "<original>", "exec"), original)  # noqa: S102 - our own test source
    exec(compile(done.new_source, "<rewritten>", "exec"), rewritten)  # noqa: S102
    assert original["result"] == rewritten["result"] == [-4, -2, 2]
    assert "rounding_mode='trunc'" in rewrite(source, [floor], "adopt-new", versions=down).new_source


def test_a_template_lambda_parameter_is_not_taken_for_a_module_to_import() -> None:
    """`Vh.mH` inside the template's own lambda is not a module `Vh` to import; `torch` is."""
    svd = entry("""
        symbols = ["torch.svd"]
        [[match]]
        call = "torch.svd"
        [[fix.adopt_new]]
        on = "call"
        action = "template"
        template = "(lambda U, S, Vh: (U, S, Vh.mH))(*torch.linalg.svd({args}, full_matrices=False))"
    """)
    done = rewrite('''
        from torch import svd
        u, s, v = svd(a)
    ''', [svd], mode="adopt-new")
    assert "import Vh" not in done.new_source and "import U" not in done.new_source
    assert "import torch\n" in done.new_source
    assert "(lambda U, S, Vh: (U, S, Vh.mH))(*torch.linalg.svd(a, full_matrices=False))" in done.new_source
