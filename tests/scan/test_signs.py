"""Values never negative (scan/signs.py): `//` on them is no floor_divide finding; a dividend
known only by a mask's name keeps the finding, at low confidence."""

import ast
from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import scan_project
from auditor.scan.names import Resolver
from auditor.scan.signs import Sign, Signs

FLOOR = "torch-floor-divide-rounds-toward-floor"


def _sign(source: str) -> Sign:
    """The sign `floor_agrees` gives the last `//` of the source."""
    tree = ast.parse(source)
    resolver = Resolver(tree, None, None, "case.py")
    node = [n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.FloorDiv)][-1]
    function = next(f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and node in set(ast.walk(f)))
    return Signs(resolver).floor_agrees(node, resolver.scope_of(function))


@pytest.mark.parametrize(("body", "expected"), [
    ("_, i = torch.topk(x, 3)\n    return i // n", Sign.NEVER_NEGATIVE),
    ("i, _ = torch.topk(x, 3)\n    return i // n", Sign.UNKNOWN),  # the values, not the indices
    ("return torch.max(x, 1)[1] // n", Sign.NEVER_NEGATIVE),
    ("return torch.max(x)[1] // n", Sign.UNKNOWN),  # no dimension: no indices
    ("return (x > 0).sum() // n", Sign.NEVER_NEGATIVE),
    ("return x.sum() // n", Sign.UNKNOWN),
    ("return pad_mask.long().sum(-1) // n", Sign.BY_NAME),
    ("return torch.arange(x.shape[0]) // n", Sign.NEVER_NEGATIVE),
    ("return torch.arange(-3, 3) // n", Sign.UNKNOWN),
    ("return (x.argmax() - 1) // n", Sign.UNKNOWN),
    ("return x.argmax() // -2", Sign.UNKNOWN),
    ("return x.argmax() // (n - 4)", Sign.UNKNOWN),
    ("return x.argmax() // x", Sign.UNKNOWN),  # a tensor divisor of unknown sign
    ("i = x.argmax()\n    i = i * 2 + len(x)\n    return i // n", Sign.NEVER_NEGATIVE),
    ("i = x.argmax()\n    i -= 5\n    return i // n", Sign.UNKNOWN),
    ("i = x.argmax()\n    i.neg_()\n    return i // n", Sign.UNKNOWN),
    ("i = x.argmax()\n    i[0] = x.min()\n    return i // n", Sign.UNKNOWN),
    ("i = x.argmax()\n    i[0] = x.numel()\n    return i // n", Sign.NEVER_NEGATIVE),
])
def test_sign_of_a_dividend(body: str, expected: Sign) -> None:
    source = f"import torch\n\ndef f(x: torch.Tensor, n: int):\n    {body}\n"
    assert _sign(source) == expected


def test_a_parameter_takes_the_sign_its_callers_pass() -> None:
    passed = "import torch\n\ndef g(x: torch.Tensor):\n    return h(x.argmax())\n\ndef h(i):\n    return i // 2\n"
    assert _sign(passed) == Sign.NEVER_NEGATIVE
    assert _sign(passed.replace("h(x.argmax())", "h(x.argmax()), h(x - 1)")) == Sign.UNKNOWN
    assert _sign("import torch\n\ndef h(i):\n    return i // 2\n") == Sign.UNKNOWN  # no caller in view


def test_a_mask_known_by_its_name_is_low_and_does_not_gate(tmp_path: Path) -> None:
    (tmp_path / "lengths.py").write_text(
        "import torch\n\n"
        "def lengths(attention_mask: torch.Tensor, scores: torch.Tensor, factor: int):\n"
        "    by_name = attention_mask.long().sum(-1) // factor\n"
        "    by_comparison = (scores > 0).sum(-1) // factor\n"
        "    signed = scores.long().sum(-1) // factor\n"
        "    return by_name, by_comparison, signed\n",
        "utf-8",
    )
    findings, _ = scan_project(tmp_path, [KnowledgeBase.load().get(FLOOR)])
    assert [(f.line, f.confidence) for f in findings] == [(4, "low"), (6, "high")]
