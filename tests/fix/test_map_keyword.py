"""map-keyword: keywords replaced by another one whose value a table gives, only where the
call site's values are literals the table knows; every other site is left alone with why."""

from __future__ import annotations

import textwrap

import pytest
import torch

from auditor.knowledge.loader import parse_entry
from tests.fix.helpers import HEAD, entry, rewrite, tomllib

LOSS = entry("""
    symbols = ["torch.nn.functional.mse_loss", "torch.nn.MSELoss"]
    [[match]]
    call = "torch.nn.functional.mse_loss"
    keyword_present = ["size_average", "reduce"]
    [[match]]
    call = "torch.nn.MSELoss"
    keyword_present = ["size_average", "reduce"]
    [[fix.adopt_new]]
    on = "call"
    action = "map-keyword"
    keyword = "reduction"
    keywords = ["size_average", "reduce"]
    max_positional = 2
    map = [
      {reduce = "False", to = "'none'"},
      {reduce = ["True", "None"], size_average = "False", to = "'sum'"},
      {reduce = ["True", "None"], size_average = ["True", "None"], to = "'mean'"},
    ]
""", introduced="1.0.0")


def test_literal_values_are_mapped_in_place_and_the_other_keywords_dropped() -> None:
    done = rewrite('''
        import torch
        import torch.nn.functional as F
        a = F.mse_loss(x, y, size_average=False)  # summed
        b = F.mse_loss(x, y, size_average=True, reduce=False)
        c = torch.nn.MSELoss(reduce=True, size_average=None)
        d = F.mse_loss(
            x,
            y,
            reduce=None,
            size_average=False,
        )
    ''', [LOSS], "adopt-new")
    assert done.new_source == textwrap.dedent('''
        import torch
        import torch.nn.functional as F
        a = F.mse_loss(x, y, reduction='sum')  # summed
        b = F.mse_loss(x, y, reduction='none')
        c = torch.nn.MSELoss(reduction='mean')
        d = F.mse_loss(
            x,
            y,
            reduction='sum',
        )
    ''')
    assert len(done.applied) == 4 and not done.left_alone


@pytest.mark.parametrize(("size_average", "reduce"), [
    (None, None), (True, None), (False, None), (None, True), (None, False), (True, True), (True, False), (False, True),
    (False, False),
])
def test_the_rows_give_what_torch_computes_from_the_legacy_pair(size_average: bool | None, reduce: bool | None) -> None:
    given = ", ".join(f"{k}={v}" for k, v in (("size_average", size_average), ("reduce", reduce)))
    done = rewrite(f"import torch\nloss = torch.nn.functional.mse_loss(x, y, {given})\n", [LOSS], "adopt-new")
    [applied] = done.applied
    x, y = torch.tensor([1.0, 2.0, 4.0]), torch.zeros(3)
    namespace: dict[str, object] = {"x": x, "y": y}
    exec(done.new_source, namespace)  # the rewritten call, run on the installed torch
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        legacy = torch.nn.functional.mse_loss(x, y, size_average=size_average, reduce=reduce)
    assert torch.equal(namespace["loss"], legacy)  # type: ignore[arg-type]


def test_unknown_values_and_spreads_are_left_alone_with_the_reason() -> None:
    done = rewrite('''
        import torch.nn.functional as F
        a = F.mse_loss(x, y, size_average=average)
        b = F.mse_loss(x, y, size_average=1)
        c = F.mse_loss(x, y, reduce=False, **options)
        d = F.mse_loss(x, y, None, size_average=False)
    ''', [LOSS], "adopt-new", min_confidence="low")
    assert not done.applied
    reasons = {x.finding.line: (x.kind, x.reason) for x in done.left_alone}
    assert reasons == {
        3: ("unknown-value", "size_average=average is not a literal: which reduction= it means is not known here"),
        4: ("unknown-value", "no row of the fix's table maps size_average=1"),  # 1 is not True here
        5: ("kwargs-spread", "a **kwargs spread may hold size_average= or reduce="),
        6: ("positional", "3 positional arguments given, at most 2 keep their place: positional arguments would move"),
    }


def test_the_loader_refuses_a_row_that_is_not_a_literal_or_names_another_keyword() -> None:
    text = HEAD.format(id="torch-bad-map", introduced="1.0.0") + textwrap.dedent("""
        symbols = ["torch.nn.functional.mse_loss"]
        [[match]]
        call = "torch.nn.functional.mse_loss"
        [[fix.adopt_new]]
        on = "call"
        action = "map-keyword"
        keyword = "reduction"
        keywords = ["size_average"]
        map = [{size_average = "flag", to = "'sum'"}, {reduce = "False", to = "'none'"}]
    """)
    parsed, problems = parse_entry(tomllib.loads(text), "bad.toml", text)
    assert parsed is None
    assert any("map: [0].size_average: 'flag' is not a Python literal" in p for p in problems), problems
    assert any("map: [1]: reduce is not one of the keywords read (size_average)" in p for p in problems), problems


def test_kb_show_and_scan_json_give_the_rows_as_written() -> None:
    import json

    from typer.testing import CliRunner

    from auditor.cli import app

    result = CliRunner().invoke(app, ["kb", "show", "torch-loss-size-average-reduce-deprecated", "-f", "json"])
    assert result.exit_code == 0, result.output
    [first, *_] = json.loads(result.output)["entry"]["fix_transforms"]["keep_old"]
    assert first["action"] == "map-keyword" and first["keywords"] == ["size_average", "reduce"]
    assert first["map"][1] == {"reduce": ["True", "None"], "size_average": ["False"], "to": "'sum'"}
    text = CliRunner().invoke(app, ["kb", "show", "torch-sdp-kernel-deprecated"]).output
    assert "- adopt-new, call: map-keyword (keyword=`backends`, keywords=`['enable_flash'" in text
