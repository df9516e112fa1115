"""benchmarks/fixfuzz.py on the shipped fixes: over the call shapes it varies (each optional
parameter present and absent, positional and keyword forms), no rewrite raises on torch 2.13.0
where the original call ran (numpy: on this interpreter's numpy). The original runs here and,
when AUDITOR_TORCH_OLD (AUDITOR_NUMPY_OLD) names an interpreter with an older torch (numpy),
there too: torch 1.12.1 and numpy 1.26.4 for the figures in the commits."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from auditor.knowledge.base import KnowledgeBase

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fixfuzz", ROOT / "benchmarks" / "fixfuzz.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["fixfuzz"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("package", "least", "names"), [
    ("torch", 300, {"torch-eig-removed", "torch-lu-deprecated"}),  # 794 checked with 1.12.1 as the old side
    ("numpy", 50, {"numpy-in1d-deprecated", "numpy-lstsq-rcond-default-changed"}),  # 88 alone, 164 with 1.26.4
])
def test_no_rewrite_raises_where_the_original_ran(kb: KnowledgeBase, package: str, least: int, names: set[str]) -> None:
    fuzz = _fuzz()
    entries = [e for e in kb.entries if e.package == package and e.fix is not None and e.probe is not None]
    found = fuzz.cases(entries, os.environ.get(f"AUDITOR_{package.upper()}_OLD"))
    checked = [c for c in found if c.rewritten is not None and c.original_ran]
    assert len(checked) > least  # the fuzz reached the fixes
    assert {c.entry for c in found} >= names
    raising = [f"{c.entry} [{c.mode}] {c.call} -> {c.rewritten}: {c.rewrite_new}" for c in found if c.raises]
    assert not raising, "\n".join(raising)
