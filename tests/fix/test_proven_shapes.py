"""A fix rewrites only the call shapes it was proven on (`proven_keywords`, `proven_values`,
the positional bounds): a call outside them is left alone with the reason, and every rewrite
the engine does make runs on real torch 2.13.0 where the original did not raise."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from auditor.fix.apply import findings_in_source, rewrite_source
from auditor.fix.spec import FIX_MODES, FixMode
from auditor.knowledge.base import KnowledgeBase
from tests.fix.helpers import entry, rewrite

SETUP = "import torch\nA = torch.tensor([[2.0, 1.0], [1.0, 3.0]])\n"

# (entry, statement, the kind it is left alone with: None when the rewrite applies)
CASES = [
    ("torch-eig-removed", "r = torch.eig(A)", None),
    ("torch-eig-removed", "r = torch.eig(A, eigenvectors=False)", None),
    ("torch-eig-removed", "r = A.eig()", None),
    ("torch-eig-removed", "r = torch.eig(A, eigenvectors=True)", "unproven-shape"),
    ("torch-eig-removed", "r = A.eig(eigenvectors=True)", "unproven-shape"),
    ("torch-eig-removed", "r = torch.eig(A, True)", "positional"),
    ("torch-eig-deprecated", "r = torch.eig(A, eigenvectors=True)", "unproven-shape"),
    ("torch-lu-deprecated", "r = torch.lu(A)", None),
    ("torch-lu-deprecated", "r = torch.lu(A, pivot=True)", None),
    ("torch-lu-deprecated", "r = A.lu(pivot=True)", None),
    ("torch-lu-deprecated", "r = torch.lu(A, get_infos=True)", "unproven-shape"),
    ("torch-lu-deprecated", "r = torch.lu(A, get_infos=False)", "unproven-shape"),
    ("torch-lu-deprecated", "r = A.lu(get_infos=True)", "unproven-shape"),
    ("torch-lu-deprecated", "r = torch.lu(A, True)", "positional"),
    ("torch-lu-deprecated", "r = A.lu(True)", "positional"),
]


def _runs(source: str) -> Any:
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(source, "<case>", "exec"), namespace)  # noqa: S102 - our own test source and its rewrite
    return namespace["r"]


@pytest.mark.parametrize(("entry_id", "statement", "kind"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_a_call_outside_the_proven_shapes_is_left_alone(kb: KnowledgeBase, entry_id: str, statement: str, kind: str | None) -> None:
    change = kb.get(entry_id)
    assert change.fix is not None
    source = SETUP + statement + "\n"
    modes: list[FixMode] = [m for m in FIX_MODES if change.fix.transforms(m)]
    for mode in modes:
        done = rewrite_source(source, findings_in_source(source, [change]), [change], mode, min_confidence="low")
        if kind is not None:
            assert not done.applied and [x.kind for x in done.left_alone] == [kind], (mode, done.new_source)
            assert done.new_source == source
            continue
        assert done.applied and not done.left_alone, (mode, [x.reason for x in done.left_alone])
        _runs(done.new_source)  # torch 2.13.0: the rewritten call raises nothing


def test_the_reason_names_the_keyword_and_what_was_proven(kb: KnowledgeBase) -> None:
    change = kb.get("torch-eig-removed")
    source = SETUP + "r = torch.eig(A, eigenvectors=True)\n"
    done = rewrite_source(source, findings_in_source(source, [change]), [change], "keep-old", min_confidence="low")
    assert "eigenvectors=True" in done.left_alone[0].reason and "False" in done.left_alone[0].reason


TEST_ENTRY = """
symbols = ["torch.old"]
[[match]]
call = "torch.old"
message = "m"
[[fix.keep_old]]
on = "call"
action = "rename-call"
to = "torch.new"
proven_keywords = ["dim", "mode"]
proven_values = { mode = ["'a'", "'b'"] }
"""


@pytest.mark.parametrize(("call", "applied"), [
    ("torch.old(x)", True),
    ("torch.old(x, dim=1)", True),
    ("torch.old(x, mode='b')", True),
    ("torch.old(x, mode='c')", False),
    ("torch.old(x, mode=m)", False),  # not a literal: which value it is is not known
    ("torch.old(x, out=y)", False),
    ("torch.old(x, **options)", False),
])
def test_proven_keywords_and_values_bound_the_rewrite(call: str, applied: bool) -> None:
    done = rewrite(f"import torch\n{call}\n", [entry(TEST_ENTRY)])
    assert bool(done.applied) is applied, [x.reason for x in done.left_alone]
    assert ("torch.new(" in done.new_source) is applied
