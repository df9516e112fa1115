"""benchmarks/fixfuzz.py on the shipped fixes: over the call shapes it varies (each optional
parameter present and absent, positional and keyword forms), no rewrite raises on torch 2.13.0
where the original call ran. The original runs on this interpreter's torch and, when
AUDITOR_TORCH_OLD names an interpreter with an older torch (1.12.1), there too."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from auditor.knowledge import KnowledgeBase

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fixfuzz", ROOT / "benchmarks" / "fixfuzz.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["fixfuzz"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_no_rewrite_raises_where_the_original_ran(kb: KnowledgeBase) -> None:
    fuzz = _fuzz()
    entries = [e for e in kb.entries if e.package == "torch" and e.fix is not None and e.probe is not None]
    found = fuzz.cases(entries, os.environ.get("AUDITOR_TORCH_OLD"))
    checked = [c for c in found if c.rewritten is not None and c.original_ran]
    assert len(checked) > 300  # the fuzz reached the fixes (693 with 1.12.1 as the old side)
    assert {c.entry for c in found} >= {"torch-eig-removed", "torch-lu-deprecated"}
    raising = [f"{c.entry} [{c.mode}] {c.call} -> {c.rewritten}: {c.rewrite_new}" for c in found if c.raises]
    assert not raising, "\n".join(raising)
