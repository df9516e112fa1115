"""Fix probes: each entry's probe rewritten by its `[fix]` and run on real versions:
numpy 1.26.0 and 2.0.0 environments for `auditor probe`, the installed torch 2.13.0 for
`kb verify`."""

from __future__ import annotations

import dataclasses

import pytest
from packaging.version import Version

from auditor.fix.probes import rewrites
from auditor.fix.spec import Transform
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.models import FixCheck, ProbeOutcome, Transition
from auditor.probe import ProbeSettings, probe_transitions
from auditor.probe.verify import verify

NUMPY = Transition("numpy", Version("1.26.0"), Version("2.0.0"))
FIXED = ("numpy-lstsq-rcond-default-changed", "numpy-text-loaders-decode-by-default", "numpy-trapz-deprecated")


@pytest.fixture(scope="module")
def shipped() -> KnowledgeBase:
    return KnowledgeBase.load()


def with_fix(entry: SpecChange, mode: str, **changes: str) -> SpecChange:
    """The entry with the first transform of `mode` changed: a wrong fix, for the tests."""
    assert entry.fix is not None
    field = "keep_old" if mode == "keep-old" else "adopt_new"
    first, *rest = getattr(entry.fix, field)
    fix = dataclasses.replace(entry.fix, **{field: (dataclasses.replace(first, **changes), *rest)})
    return dataclasses.replace(entry, id=f"{entry.id}-wrong", fix=fix)


def checks(outcome: ProbeOutcome) -> dict[str, FixCheck]:
    return {c.mode: c for c in outcome.fixes}


@pytest.fixture(scope="module")
def numpy_outcomes(shipped: KnowledgeBase, settings: ProbeSettings) -> dict[str, ProbeOutcome]:
    lstsq = shipped.get("numpy-lstsq-rcond-default-changed")
    wrong = with_fix(lstsq, "keep-old", value="None")  # the 2.x cut-off: not what 1.26 did
    entries = [shipped.get(i) for i in FIXED] + [wrong]
    return {o.change: o for o in probe_transitions([NUMPY], entries, settings)}


@pytest.mark.slow
def test_keep_old_on_the_new_version_prints_what_the_original_printed_on_the_old_one(
    numpy_outcomes: dict[str, ProbeOutcome],
) -> None:
    outcome = numpy_outcomes["numpy-lstsq-rcond-default-changed"]
    assert outcome.status == "confirmed"
    keep, adopt = checks(outcome)["keep-old"], checks(outcome)["adopt-new"]
    assert keep == FixCheck("keep-old", "verified", ("1.26.0", "2.0.0"), (outcome.old.output, "3"))  # type: ignore[union-attr]
    assert keep.summary() == "keep-old verified on 1.26.0 / 2.0.0"
    assert adopt.status == "verified" and adopt.outputs == ("2", "2")
    loaders = checks(numpy_outcomes["numpy-text-loaders-decode-by-default"])
    assert loaders["keep-old"].outputs == ("bytes_", "bytes_") and loaders["adopt-new"].outputs == ("str_", "str_")


@pytest.mark.slow
def test_a_wrong_fix_fails_with_both_outputs(numpy_outcomes: dict[str, ProbeOutcome]) -> None:
    wrong = checks(numpy_outcomes["numpy-lstsq-rcond-default-changed-wrong"])["keep-old"]
    assert wrong.status == "failed"
    assert wrong.outputs == ("3", "2")
    assert wrong.reason == "the keep-old rewrite on the new version does not print what the original printed on the old one"


@pytest.mark.slow
def test_a_fix_whose_requirement_an_end_misses_is_skipped_with_the_reason(
    numpy_outcomes: dict[str, ProbeOutcome],
) -> None:
    trapz = checks(numpy_outcomes["numpy-trapz-deprecated"])
    assert set(trapz) == {"adopt-new"}  # the entry has no keep-old fix
    assert trapz["adopt-new"].status == "skipped"
    assert trapz["adopt-new"].reason == "the adopt-new rewrite needs numpy>=2.0, which 1.26.0 is not"


def test_kb_verify_runs_the_keep_old_rewrite_on_the_installed_torch(shipped: KnowledgeBase) -> None:
    meshgrid, overflow = shipped.get("torch-meshgrid-indexing-warns"), shipped.get("torch-tensor-int-overflow-raises")
    result = verify([meshgrid, overflow], rewrites=rewrites)
    by_id = {r.id: r for r in result.results}
    assert not result.failed
    keep = {f.mode: f for f in by_id[meshgrid.id].fixes}["keep-old"]
    assert keep.status == "verified" and keep.outputs == ("silent",)  # the probe's `before`; the original warns
    assert by_id[meshgrid.id].observed == "warns"
    adopt = {f.mode: f for f in by_id[meshgrid.id].fixes}["adopt-new"]
    assert adopt.status == "ran" and adopt.outputs == ("silent",)
    assert [f.outputs for f in by_id[overflow.id].fixes] == [("tensor(44, dtype=torch.int8)",)]


def test_kb_verify_fails_a_wrong_fix_and_an_unrewritable_probe(shipped: KnowledgeBase) -> None:
    meshgrid = shipped.get("torch-meshgrid-indexing-warns")
    wrong = with_fix(meshgrid, "keep-old", value="'xy'")  # silences the warning, but swaps the grids
    wrong = dataclasses.replace(wrong, probe=dataclasses.replace(meshgrid.probe, code=meshgrid.probe.code.replace(  # type: ignore[union-attr]
        'print("warns" if', 'print(grid[0].shape, "warns" if').replace(
        "torch.meshgrid(torch.arange(2), torch.arange(3))", "grid = torch.meshgrid(torch.arange(2), torch.arange(3))"),
        before="torch.Size([2, 3]) silent", after="torch.Size([2, 3]) warns"))
    stranger = Transform(on="call", action="rename-call", to="torch.outer")
    assert meshgrid.fix is not None
    added = shipped.get("torch-autocast-added")
    assert added.probe is not None
    unrewritable = dataclasses.replace(  # a probe that only asks whether the name exists: no call to rewrite
        added, id="torch-autocast-added-fixed",
        fix=dataclasses.replace(meshgrid.fix, keep_old=(stranger,), adopt_new=()),
        probe=dataclasses.replace(added.probe, code='import torch\nprint(hasattr(torch, "autocast"))\n'),
    )
    result = verify([wrong, unrewritable], rewrites=rewrites)
    by_id = {r.id: r for r in result.results}
    assert result.failed
    bad = by_id[wrong.id].fixes[0]
    assert (bad.status, bad.outputs) == ("failed", ("torch.Size([3, 2]) silent",))
    assert by_id[wrong.id].status == "pass" and by_id[wrong.id].failed  # the probe holds; its fix does not
    (none,) = by_id[unrewritable.id].fixes
    assert none.status == "failed", none.reason
    assert none.reason is not None and none.reason.startswith("the engine cannot rewrite the probe:")


def test_a_fix_that_says_its_probe_cannot_be_rewritten_is_not_run(shipped: KnowledgeBase) -> None:
    opset = shipped.get("torch-onnx-default-opset-14")
    assert opset.fix is not None and not opset.fix.probe and opset.fix.probe_reason
    assert rewrites(opset) == ()


@pytest.mark.slow
def test_on_a_downgrade_out_of_a_change_that_hurts_both_ways_the_tables_swap_as_the_engine_swaps_them(
    shipped: KnowledgeBase, settings: ProbeSettings,
) -> None:
    lstsq = shipped.get("numpy-lstsq-rcond-default-changed")
    assert lstsq.hazard == "both"
    down = Transition("numpy", Version("2.0.0"), Version("1.26.0"))
    (outcome,) = probe_transitions([down], [lstsq], settings)
    keep, adopt = checks(outcome)["keep-old"], checks(outcome)["adopt-new"]
    # keep-old keeps 2.0's cut-off on 1.26 (the adopt_new table, rcond=None); adopt-new is 1.x's, on both
    assert keep == FixCheck("keep-old", "verified", ("2.0.0", "1.26.0"), ("2", "2"))
    assert adopt == FixCheck("adopt-new", "verified", ("2.0.0", "1.26.0"), ("3", "3"))
