"""Transitions and crossing: min(old, new) < V <= max(old, new), local labels ignored."""

import pytest
from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase
from auditor.models import Transition


def crossed(kb: KnowledgeBase, old: str, new: str, python: str | None = None) -> set[str]:
    return {e.id for e in kb.crossed([Transition("torch", Version(old), Version(new))], python)}


@pytest.mark.parametrize(
    ("old", "new", "direction"),
    [("1.12.1", "1.13.0", "upgrade"), ("1.13.0", "1.12.1", "downgrade"),
     ("1.13.0+cu117", "1.13.0+cu118", "unchanged"), ("1.13.0", "1.13.0", "unchanged")],
)
def test_direction(old: str, new: str, direction: str) -> None:
    assert Transition("torch", Version(old), Version(new)).direction == direction


def test_added_and_removed() -> None:
    assert Transition("torch", None, Version("2.0")).direction == "added"
    assert Transition("torch", Version("2.0"), None).direction == "removed"


def test_crossing_is_bounded_and_follows_each_entrys_hazard(kb: KnowledgeBase) -> None:
    up = crossed(kb, "1.12.1", "1.13.0")
    assert "torch-floor-divide-rounds-toward-floor" in up
    assert "torch-clamp-type-promotion" not in up  # 1.12.0 is not > 1.12.1
    down = crossed(kb, "1.13.0", "1.12.1")
    # behaviour and default changes hurt both ways; removals, new errors and warnings on the
    # way up only; what 1.13 added on the way down only
    assert {kb.get(i).hazard for i in up & down} == {"both"}
    assert {kb.get(i).hazard for i in up - down} == {"upgrade"}
    assert {kb.get(i).hazard for i in down - up} == {"downgrade"}
    assert {"torch-eig-removed", "torch-lu-deprecated"} <= up - down
    assert "torch-load-weights-only-param-added" in down - up
    assert "torch-floor-divide-rounds-toward-floor" not in crossed(kb, "1.13.0", "1.13.1")


def test_local_labels_do_not_change_what_is_crossed(kb: KnowledgeBase) -> None:
    assert crossed(kb, "1.12.1+cu116", "1.13.0+cu117") == crossed(kb, "1.12.1", "1.13.0")
    assert crossed(kb, "1.13.0+cu116", "1.13.0+cu117") == set()


def test_reverted_change_is_crossed_only_into_or_out_of_its_window(kb: KnowledgeBase) -> None:
    unbatched = "torch-dropout2d-3d-input-read-as-unbatched"
    assert unbatched in crossed(kb, "1.10.2", "1.11.0")
    assert unbatched in crossed(kb, "1.11.0", "1.12.1")
    assert unbatched not in crossed(kb, "1.10.2", "1.12.1")  # same reading on both sides
    assert "torch-dropout2d-3d-input-warns" in crossed(kb, "1.10.2", "1.12.1")


def test_python_condition(kb: KnowledgeBase) -> None:
    assert "torch-tensor-int-overflow-raises" in crossed(kb, "1.12.1", "1.13.0", python="3.10")
    assert "torch-tensor-int-overflow-raises" not in crossed(kb, "1.12.1", "1.13.0", python="3.9")


def test_added_apis_matter_only_when_moving_below_them(kb: KnowledgeBase) -> None:
    from dataclasses import replace

    entry = replace(kb.get("torch-floor-divide-rounds-toward-floor"), kind="added", hazard="downgrade")
    assert not entry.crossed_by(Transition("torch", Version("1.12.1"), Version("1.13.0")))
    assert entry.crossed_by(Transition("torch", Version("1.13.0"), Version("1.12.1")))


def test_unpinned_is_its_own_direction() -> None:
    assert Transition("torchvision", Version("0.18.1"), None, unpinned=True).direction == "unpinned"
