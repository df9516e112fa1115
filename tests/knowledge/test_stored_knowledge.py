"""The parsed knowledge kept between runs: the same entries, read again whenever anything changes."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from auditor.errors import KnowledgeError
from auditor.knowledge import KnowledgeBase
from auditor.knowledge.loader import default_directory, load_entries
from auditor.knowledge.stored import MAX_AGE_DAYS, SUBDIRECTORY, load_stored
from auditor.models import SpecChange


class CountingLoader:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, root: Path) -> tuple[SpecChange, ...]:
        self.calls += 1
        return load_entries(root)


@pytest.fixture
def knowledge(tmp_path: Path) -> Path:
    copy = tmp_path / "knowledge"
    shutil.copytree(default_directory(), copy)
    return copy


def test_a_second_load_reads_the_stored_entries(knowledge: Path, tmp_path: Path) -> None:
    loader = CountingLoader()
    first = load_stored(knowledge, tmp_path / "cache", loader)
    second = load_stored(knowledge, tmp_path / "cache", loader)
    assert loader.calls == 1
    assert second == first == load_entries(knowledge)
    assert len(list((tmp_path / "cache" / SUBDIRECTORY).glob("*.pickle"))) == 1


def test_an_edited_entry_is_read_again(knowledge: Path, tmp_path: Path) -> None:
    loader = CountingLoader()
    before = load_stored(knowledge, tmp_path / "cache", loader)
    entry = knowledge / "torch" / "1.13" / "floor-divide-rounds-toward-floor.toml"
    entry.write_text(entry.read_text("utf-8").replace('severity = "high"', 'severity = "medium"', 1), "utf-8")
    after = load_stored(knowledge, tmp_path / "cache", loader)
    assert loader.calls == 2
    assert {e.id: e.severity for e in after}["torch-floor-divide-rounds-toward-floor"] == "medium"
    assert {e.id: e.severity for e in before}["torch-floor-divide-rounds-toward-floor"] == "high"
    # both are kept (a checkout and an installed release may take turns)
    assert len(list((tmp_path / "cache" / SUBDIRECTORY).glob("*.pickle"))) == 2


def test_stored_bases_unused_for_a_month_are_deleted(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "cache" / SUBDIRECTORY
    store.mkdir(parents=True)
    old, recent = store / "old.pickle", store / "recent.pickle"
    for path in (old, recent):
        path.write_bytes(b"left by another version")
    long_ago = time.time() - (MAX_AGE_DAYS + 2) * 86400
    os.utime(old, (long_ago, long_ago))
    load_stored(knowledge, tmp_path / "cache", load_entries)
    assert not old.exists() and recent.exists()
    assert len(list(store.glob("*.pickle"))) == 2  # the new one and the recent one


def test_a_broken_entry_is_reported_and_never_stored(knowledge: Path, tmp_path: Path) -> None:
    (knowledge / "broken.toml").write_text('id = "x"\n', "utf-8")
    for _ in range(2):
        with pytest.raises(KnowledgeError):
            load_stored(knowledge, tmp_path / "cache", load_entries)
    assert not list((tmp_path / "cache").rglob("*.pickle"))


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x04K\x01."])  # the last is the int 1
def test_an_unreadable_store_is_passed_over(knowledge: Path, tmp_path: Path, content: bytes) -> None:
    loader = CountingLoader()
    load_stored(knowledge, tmp_path / "cache", loader)
    (stored,) = (tmp_path / "cache" / SUBDIRECTORY).glob("*.pickle")
    stored.write_bytes(content)
    assert load_stored(knowledge, tmp_path / "cache", loader) == load_entries(knowledge)
    assert loader.calls == 2


def test_a_cache_that_cannot_be_written_is_no_error(knowledge: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would be")
    assert KnowledgeBase.load(knowledge, cache_dir=blocked).entries == load_entries(knowledge)
