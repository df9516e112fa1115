"""Every shipped fix over the call shapes it claims (auditor/fix/shapes.py: each keyword present
and absent, positional and keyword forms, the listed values): no rewrite raises on this
interpreter's build (torch 2.13.0) where the original call ran. The original runs here and, when
AUDITOR_TORCH_OLD (AUDITOR_NUMPY_OLD) names an interpreter with an older torch (numpy), there
too; by default the torch 1.12.1 probe environment (numpy 1.26.4), when it is cached."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from auditor.fix.shapes import shape_cases
from auditor.knowledge.base import KnowledgeBase

pytestmark = pytest.mark.slow
CACHED = Path.home() / ".cache" / "auditor" / "envs" / "torch-1.12.1-py3.10" / "bin" / "python"


def _old(package: str) -> str | None:
    return os.environ.get(f"AUDITOR_{package.upper()}_OLD") or (str(CACHED) if CACHED.exists() else None)


@pytest.mark.parametrize(("package", "least", "names"), [
    ("torch", 300, {"torch-eig-removed", "torch-lu-deprecated"}),  # 876 with 1.12.1 as the old side
    ("numpy", 50, {"numpy-in1d-deprecated", "numpy-lstsq-rcond-default-changed"}),  # 176 with 1.26.4
])
def test_no_claimed_shape_raises_where_the_original_ran(kb: KnowledgeBase, package: str, least: int, names: set[str]) -> None:
    entries = [e for e in kb.entries if e.package == package and e.fix is not None and e.probe is not None]
    found = shape_cases(entries, _old(package))
    checked = [c for c in found if c.status in ("proven", "raises")]
    assert len(checked) > least  # the shapes reached the fixes
    assert {c.entry for c in found} >= names
    raising = [f"{c.entry} [{c.mode}] {c.call} -> {c.rewritten}: {c.rewrite_new}" for c in found if c.status == "raises"]
    assert not raising, "\n".join(raising)
