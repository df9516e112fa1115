"""`kb verify` checks the warning category (or exception) a probe declares, as a user would see it."""

from dataclasses import replace

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.probe import verify
from auditor.probe.runner import run_batch

torch = pytest.importorskip("torch")

SDP = "torch-sdp-kernel-deprecated"


def test_the_child_sees_warnings_the_probe_catches_itself() -> None:
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    warnings.warn('inner text', FutureWarning)\n"
        "print(len(caught))\n"
    )
    batch = run_batch({"p": code}, [], None, 60)
    result = batch.results["p"]
    assert result.output == "1"  # the probe's own record still gets it
    assert result.warnings == ("FutureWarning: inner text",)


@pytest.mark.slow
def test_sdp_kernel_probe_enters_the_context_manager_and_sees_a_futurewarning(kb: KnowledgeBase) -> None:
    entry = kb.get(SDP)
    assert str(entry.introduced) == "2.3.0"
    assert entry.probe is not None and "with sdp_kernel()" in entry.probe.code
    [verdict] = verify([entry]).results
    assert verdict.status == "pass", verdict


@pytest.mark.slow
def test_a_wrong_category_fails(kb: KnowledgeBase) -> None:
    entry = kb.get(SDP)
    assert entry.probe is not None
    wrong = replace(entry, probe=replace(entry.probe, warns="DeprecationWarning: sdp_kernel()"))
    [verdict] = verify([wrong]).results
    assert verdict.status == "fail"
    assert "no DeprecationWarning: sdp_kernel() was raised" in (verdict.expected or "")
    assert "FutureWarning: `torch.backends.cuda.sdp_kernel()` is deprecated" in (verdict.observed or "")


@pytest.mark.slow
def test_a_warning_where_the_change_is_not_active_fails(kb: KnowledgeBase) -> None:
    """An entry dated after the installed torch must not see its warning: the off-by-one guard."""
    from packaging.version import Version

    entry = kb.get(SDP)
    assert entry.probe is not None
    later = replace(entry, introduced=Version("2.99.0"), probe=replace(entry.probe, before="warns"))
    [verdict] = verify([later]).results
    assert verdict.status == "fail"
    assert "raised where the change is not active" in (verdict.expected or "")


@pytest.mark.slow
def test_a_declared_exception_must_be_observed(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-tensor-int-overflow-raises")
    assert entry.probe is not None
    right = replace(entry, probe=replace(entry.probe, raises="RuntimeError"))
    wrong = replace(entry, probe=replace(entry.probe, raises="ValueError"))
    statuses = [v.status for v in verify([right, wrong]).results]
    assert statuses == ["pass", "fail"]
