"""Each shipped fix rewrites its own entry's probe, and the rewrite behaves as the mode says
on the installed torch (2.13.0, the new side of every entry it is active on): keep-old prints
the probe's `before` (for a change that hurts on upgrade), adopt-new runs cleanly."""

from __future__ import annotations

import sys

import pytest
import torch
from packaging.version import Version

from auditor.fix.apply import rewrite_probe
from auditor.fix.spec import FixMode
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.probe.runner import run_batch

INSTALLED = Version(torch.__version__)
SEED = {"torch-floor-divide-rounds-toward-floor", "torch-tensor-int-overflow-raises", "torch-load-weights-only-default-true"}


def _runnable(e: SpecChange, mode: FixMode) -> bool:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return (
        e.package == "torch" and e.fix is not None and bool(e.fix.transforms(mode)) and e.fix.probe
        and e.probe is not None and not e.probe.skip and not e.probe.requires
        and e.probe.unusable_on(INSTALLED) is None and e.applies_to_python(python) and e.active(INSTALLED)
        and (mode == "adopt-new" or e.hazard in ("upgrade", "both"))  # keep-old of a downgrade ends below it
    )


@pytest.mark.parametrize("mode", ["keep-old", "adopt-new"])
def test_each_fix_rewrites_its_probe_and_the_rewrite_prints_what_the_mode_promises(kb: KnowledgeBase, mode: FixMode) -> None:
    entries = [e for e in kb.entries if _runnable(e, mode)]
    if mode == "keep-old":
        assert SEED <= {e.id for e in entries}
    if not entries:
        pytest.skip(f"no shipped entry has an {mode} fix active on {INSTALLED}")
    codes = {}
    for e in entries:
        done = rewrite_probe(e, mode)
        assert done is not None and e.probe is not None
        assert done.applied and done.new_source != e.probe.code, (e.id, done.left_alone)
        codes[e.id] = done.new_source
    batch = run_batch(codes, ["torch"], timeout=600)
    for e in entries:
        assert e.probe is not None
        if mode == "keep-old":
            assert batch.results[e.id].observed == e.probe.before, (e.id, codes[e.id])
        else:  # the same on both versions, which one version cannot show (tests/probe/test_fix_probes.py
            # runs two); a renamed deprecated call prints `before` (no warning), a new keyword `after`
            assert batch.results[e.id].error is None and batch.results[e.id].observed, (e.id, codes[e.id])
