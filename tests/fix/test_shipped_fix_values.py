"""Shipped fixes whose rewrite replaces a call that 2.13.0 still runs (deprecated, not removed)
give the value the original call gives, on real torch: the snippet is rewritten by the engine
with the entry's own fix, both versions are run in-process, and their results compared.

Entry probes (tests/fix/test_probes.py) show that a rewrite silences a warning; these show that
the rewritten expression still computes what the code computed."""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

from auditor.fix.apply import findings_in_source, rewrite_source
from auditor.fix.spec import FixMode
from auditor.knowledge.base import KnowledgeBase

SETUP = """
import torch
import torch.nn.functional as F
g = torch.Generator().manual_seed(0)
A = torch.randn(3, 4, 4, generator=g, dtype=torch.float64).triu() + 4 * torch.eye(4, dtype=torch.float64)
L = A.transpose(-2, -1)
b = torch.randn(3, 4, 2, generator=g, dtype=torch.float64)
M = torch.randn(5, 3, generator=g, dtype=torch.float64)
x = torch.randn(2, 3, 4, generator=g)
v = torch.randn(64, generator=g)
base = torch.randn(5, 7, generator=g)
idx = torch.randint(0, 5, (9, 7), generator=g)
src = torch.randn(9, 7, generator=g)
"""

# (entry id, mode, the statement binding `result`; the setup above names its inputs)
CASES = [
    ("torch-range-deprecated", "keep-old", "result = torch.range(-2, 5)"),
    ("torch-range-deprecated", "keep-old", "result = torch.range(0, 3, dtype=torch.int64)"),
    ("torch-tensor-resize-deprecated", "keep-old", "result = v.resize(8, 8)"),
    ("torch-tensor-resize-deprecated", "keep-old", "result = v.resize_as(M.new_empty(8, 8))"),
    ("torch-triangular-solve-deprecated", "keep-old", "result = torch.triangular_solve(b, A)"),
    ("torch-triangular-solve-deprecated", "keep-old", "result = torch.triangular_solve(b, L, upper=False, transpose=True)"),
    ("torch-triangular-solve-deprecated", "keep-old", "result = b.triangular_solve(A, True, False, True)"),
    ("torch-svd-deprecated", "adopt-new", "result = torch.svd(M)"),
    ("torch-svd-deprecated", "adopt-new", "result = M.svd()"),
    ("torch-norm-deprecated", "adopt-new", "result = torch.norm(x)"),
    ("torch-norm-deprecated", "adopt-new", "result = torch.norm(x, 1, (1, 2), True)"),
    ("torch-norm-deprecated", "adopt-new", "result = torch.norm(x, p=float('inf'), dim=2)"),
    ("torch-softmax-implicit-dim-deprecated", "keep-old", "result = F.softmax(x)"),
    ("torch-softmax-implicit-dim-deprecated", "keep-old", "result = F.log_softmax(M)"),
    ("torch-scatter-reduce-argument-tensor-src-deprecated", "keep-old", "result = base.scatter(0, idx, src, reduce='add')"),
    ("torch-scatter-reduce-argument-tensor-src-deprecated", "keep-old", "result = torch.scatter(base, 0, idx, src, reduce='multiply')"),
    ("torch-hardswish-added", "keep-old", "result = F.hardswish(v)"),
]

CLOSE = [  # the definition written out: equal to within float32 rounding, not bit for bit
    ("torch-silu-added", "keep-old", "result = F.silu(v)"),
    ("torch-mish-added", "keep-old", "result = F.mish(v)"),
]


def _run(source: str) -> Any:
    """`result` after running a whole module's source (the setup and the statement)."""
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(source, "<case>", "exec"), namespace)  # noqa: S102 - our own test source and its rewrite
    return namespace["result"]


def _rewritten(kb: KnowledgeBase, entry_id: str, mode: FixMode, statement: str) -> str:
    """The setup and the statement, rewritten by the entry's fix of `mode` (every confidence)."""
    entry = kb.get(entry_id)
    source = SETUP + textwrap.dedent(statement)
    findings = findings_in_source(source, [entry])
    done = rewrite_source(source, findings, [entry], mode, min_confidence="low")
    assert done.applied and not done.left_alone, (entry_id, statement, [x.reason for x in done.left_alone])
    assert done.new_source.startswith(SETUP)  # only the statement changes
    return done.new_source


def _same(old: Any, new: Any, equal: Callable[[torch.Tensor, torch.Tensor], bool]) -> bool:
    if isinstance(old, tuple):
        return type(old) is type(new) and len(old) == len(new) and all(_same(o, n, equal) for o, n in zip(old, new))
    return isinstance(new, torch.Tensor) and old.dtype == new.dtype and old.shape == new.shape and equal(old, new)


@pytest.mark.parametrize(("entry_id", "mode", "statement"), CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_the_rewrite_gives_the_value_of_the_original_call(kb: KnowledgeBase, entry_id: str, mode: FixMode, statement: str) -> None:
    new_source = _rewritten(kb, entry_id, mode, statement)
    assert _same(_run(SETUP + statement), _run(new_source), torch.equal), new_source


@pytest.mark.parametrize(("entry_id", "mode", "statement"), CLOSE, ids=[f"{c[0]}:{c[2]}" for c in CLOSE])
def test_a_written_out_definition_gives_the_value_to_within_rounding(kb: KnowledgeBase, entry_id: str, mode: FixMode, statement: str) -> None:
    new_source = _rewritten(kb, entry_id, mode, statement)
    assert _same(_run(SETUP + statement), _run(new_source), lambda a, b: torch.allclose(a, b, rtol=1e-6, atol=1e-6)), new_source


def test_the_resize_rewrite_shares_storage_as_the_deprecated_method_did(kb: KnowledgeBase) -> None:
    statement = "result = (v, v.resize(8, 8))"
    old, new = _run(SETUP + statement), _run(_rewritten(kb, "torch-tensor-resize-deprecated", "keep-old", statement))
    assert old[0].data_ptr() == old[1].data_ptr() and new[0].data_ptr() == new[1].data_ptr()


def test_dropout1d_becomes_dropout2d_with_the_same_mask_under_one_seed(kb: KnowledgeBase) -> None:
    statement = "torch.manual_seed(1)\nresult = torch.nn.Dropout1d(0.5)(x)"
    new_source = _rewritten(kb, "torch-dropout1d-added", "keep-old", statement)
    assert "Dropout2d" in new_source
    assert torch.equal(_run(SETUP + statement), _run(new_source))
