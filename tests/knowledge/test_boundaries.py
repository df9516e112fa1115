"""benchmarks/boundaries.py: a side of a boundary is pinned by a real run on that release, and the
earlier side of a probe that cannot run there only by a recorded run that showed the API absent."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from auditor.errors import KnowledgeError
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.loader import default_directory, load_entries

ROOT = Path(__file__).resolve().parents[2]
FX = default_directory() / "torch" / "1.10" / "fx-multipledispatch-ordering-deprecated" / "change.toml"


@pytest.fixture(scope="module")
def boundaries() -> ModuleType:
    spec = importlib.util.spec_from_file_location("boundaries", ROOT / "benchmarks" / "boundaries.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["boundaries"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_earlier_side_is_pinned_by_a_recorded_absence_only(kb: KnowledgeBase, boundaries: ModuleType) -> None:
    entry = kb.get("torch-fx-multipledispatch-ordering-deprecated")
    assert entry.probe is not None and entry.probe.absent_on == ("1.9.1",)
    (edge,) = boundaries.boundaries(entry)
    assert (edge.before, edge.after, edge.pinned, edge.absent) == ("1.9.1", "1.10.0", True, True)
    unrecorded = replace(entry, probe=replace(entry.probe, absent_on=()))
    (edge,) = boundaries.boundaries(unrecorded)
    assert not edge.before_pinned and not edge.absent and edge.note == "the probe needs 1.10.0, after 1.9.1"
    # a release far from the boundary does not stand for the one before it
    elsewhere = replace(entry, probe=replace(entry.probe, absent_on=("1.8.1",)))
    assert not boundaries.boundaries(elsewhere)[0].before_pinned


def test_the_summary_counts_the_absences_apart(boundaries: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert boundaries.main([]) == 0
    out = capsys.readouterr().out
    absent = sum(
        1
        for e in KnowledgeBase.load().for_package("torch")
        if e.probe and not e.probe.skip and e.probe.absent_on
    )
    assert absent >= 3
    assert f"the earlier side by a real run that showed the probed API absent: {absent})" in out


@pytest.mark.parametrize(
    ("since", "absent_on", "says"),
    [
        ('since = "1.10.0"\n', '["1.10.0"]', "1.10.0 is not before the probe's since (1.10.0)"),
        ("", '["1.9.1"]', "1.9.1 is not before the probe's since (none)"),
        ('since = "1.10.0"\n', '["one"]', "probe.absent_on: invalid version 'one'"),
    ],
)
def test_an_absence_is_recorded_only_before_since(tmp_path: Path, since: str, absent_on: str, says: str) -> None:
    text = FX.read_text("utf-8")
    text = text.replace('since = "1.10.0"\n', since).replace('absent_on = ["1.9.1"]', f"absent_on = {absent_on}")
    (tmp_path / "fx.toml").write_text(text, "utf-8")
    with pytest.raises(KnowledgeError) as caught:
        load_entries(tmp_path)
    assert any("fx.toml" in p and says in p for p in caught.value.problems), caught.value.problems


def test_the_shipped_absences_load(tmp_path: Path) -> None:
    shutil.copy(FX, tmp_path / "fx.toml")
    (entry,) = load_entries(tmp_path)
    assert entry.probe is not None and entry.probe.absent_on == ("1.9.1",)



# Entries whose earlier side is not run yet, each saying so in its `doubt`. The list only shrinks.
NOT_YET_PINNED: set[str] = {
    # the until edge (2.10.0 | 2.11.0, the pt2e removal) not run; the introduced edge is
    "torch-xnnpack-quantizer-deprecated",
    # release-note items of 2.10-2.14, read in the wheels, run on 2.13.0 only
    "torch-linear-cross-entropy-acc-policy-balanced-removed",
    "torch-symm-mem-enable-for-group-deprecated",
    "torch-varlen-attn-options-keyword-only",
    "torch-dynamo-inline-inbuilt-nn-modules-deprecated",
    "torch-dynamo-faithful-generator-behavior-deprecated",
    "torch-distributed-config-compile-on-one-rank-deprecated",
    "torch-sampler-data-source-removed",
    "torch-datapipes-grouping-sharding-reexports-removed",
    "torch-tvm-backend-relax-only",
    "torch-checkpoint-sac-saved-tensors-hooks-warns",
}


def test_every_probed_entry_is_pinned_on_both_sides_of_its_boundary(kb: KnowledgeBase, boundaries: ModuleType) -> None:
    rows = {e.id: boundaries.boundaries(e) for e in kb.for_package("torch") if e.probe and not e.probe.skip}
    assert all(kb.get(i).doubt for i in NOT_YET_PINNED)
    unpinned = [
        f"{b.id} {b.edge}: {b.before}{'' if b.before_pinned else ' (not run)'} | {b.after}{'' if b.after_pinned else ' (not run)'}"
        for found in rows.values() for b in found if not b.pinned and b.id not in NOT_YET_PINNED
    ]
    assert len(rows) >= 248 and not unpinned, unpinned
    pinned_now = sorted(i for i in NOT_YET_PINNED if i in rows and all(b.pinned for b in rows[i]))
    assert not pinned_now, f"pinned now: remove from NOT_YET_PINNED: {pinned_now}"
