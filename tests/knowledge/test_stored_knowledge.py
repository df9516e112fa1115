"""The parsed knowledge kept between runs: the same entries, read again whenever anything changes,
kept as JSON (never a pickle), and a kept base that cannot be used is said once."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.errors import KnowledgeError
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.loader import Knowledge, default_directory, load_entries, read_knowledge
from auditor.knowledge.stored import MAX_AGE_DAYS, SHIPPED, SUBDIRECTORY, load_stored, ship


class CountingLoader:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, root: Path) -> Knowledge:
        self.calls += 1
        return read_knowledge(root)


@pytest.fixture
def knowledge(tmp_path: Path) -> Path:
    copy = tmp_path / "knowledge"
    shutil.copytree(default_directory(), copy, ignore=shutil.ignore_patterns(SHIPPED))  # an installed one ships it
    return copy


@pytest.fixture(scope="module")
def shipped_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the knowledge with its base shipped (`ship` reads the harvest too: seconds), made
    once for the tests that start from a shipped base."""
    copy = tmp_path_factory.mktemp("shipped") / "knowledge"
    shutil.copytree(default_directory(), copy, ignore=shutil.ignore_patterns(SHIPPED))
    ship(copy, copy / SHIPPED)
    return copy


@pytest.fixture
def shipped(shipped_once: Path, tmp_path: Path) -> Path:
    """A knowledge directory of this test's own that ships its base, as a wheel's does."""
    return Path(shutil.copytree(shipped_once, tmp_path / "knowledge"))


def kept(cache: Path) -> list[Path]:
    return list((cache / SUBDIRECTORY).glob("*.json"))


def test_a_second_load_reads_the_stored_entries(knowledge: Path, tmp_path: Path) -> None:
    loader = CountingLoader()
    first, notes = load_stored(knowledge, tmp_path / "cache", loader)
    second, again = load_stored(knowledge, tmp_path / "cache", loader)
    assert loader.calls == 1 and notes == again == ()
    assert second.entries == first.entries == load_entries(knowledge)
    assert second.horizon == first.horizon and second.horizon["torch"].public == "2.15.0"
    (stored,) = kept(tmp_path / "cache")
    json.loads(stored.read_bytes())  # plain JSON


def test_an_edited_entry_is_read_again(knowledge: Path, tmp_path: Path) -> None:
    loader = CountingLoader()
    before, _ = load_stored(knowledge, tmp_path / "cache", loader)
    entry = knowledge / "torch" / "1.13" / "floor-divide-rounds-toward-floor" / "change.toml"
    entry.write_text(entry.read_text("utf-8").replace('severity = "high"', 'severity = "medium"', 1), "utf-8")
    after, _ = load_stored(knowledge, tmp_path / "cache", loader)
    assert loader.calls == 2
    assert {e.id: e.severity for e in after.entries}["torch-floor-divide-rounds-toward-floor"] == "medium"
    assert {e.id: e.severity for e in before.entries}["torch-floor-divide-rounds-toward-floor"] == "high"
    # both are kept (a checkout and an installed release may take turns)
    assert len(kept(tmp_path / "cache")) == 2


def test_stored_bases_unused_for_a_month_are_deleted_and_pickles_always(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "cache" / SUBDIRECTORY
    store.mkdir(parents=True)
    old, recent, pickled = store / "old.json", store / "recent.json", store / "recent.pickle"
    for path in (old, recent, pickled):
        path.write_bytes(b"left by another version")
    long_ago = time.time() - (MAX_AGE_DAYS + 2) * 86400
    os.utime(old, (long_ago, long_ago))
    load_stored(knowledge, tmp_path / "cache", read_knowledge)
    assert not old.exists() and recent.exists() and not pickled.exists()
    assert len(kept(tmp_path / "cache")) == 2  # the new one and the recent one


def test_a_broken_entry_is_reported_and_never_stored(knowledge: Path, tmp_path: Path) -> None:
    (knowledge / "broken.toml").write_text('id = "x"\n', "utf-8")
    for _ in range(2):
        with pytest.raises(KnowledgeError):
            load_stored(knowledge, tmp_path / "cache", read_knowledge)
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_a_shipped_base_is_read_instead_of_the_files_while_they_are_its_own(shipped: Path, tmp_path: Path) -> None:
    knowledge = shipped
    loader = CountingLoader()
    uncached, notes = load_stored(knowledge, None, loader)
    cached, again = load_stored(knowledge, tmp_path / "cache", loader)
    assert loader.calls == 0 and notes == again == ()
    files = read_knowledge(knowledge)
    assert uncached.entries == cached.entries == files.entries
    assert cached.horizon == files.horizon
    assert not (tmp_path / "cache").exists()  # nothing to keep: the wheel has it


def test_an_entry_edited_after_shipping_is_read_from_its_file(shipped: Path) -> None:
    knowledge = shipped
    entry = knowledge / "torch" / "1.13" / "floor-divide-rounds-toward-floor" / "change.toml"
    entry.write_text(entry.read_text("utf-8").replace('severity = "high"', 'severity = "medium"', 1), "utf-8")
    loader = CountingLoader()
    after, _ = load_stored(knowledge, None, loader)
    assert loader.calls == 1
    assert {e.id: e.severity for e in after.entries}["torch-floor-divide-rounds-toward-floor"] == "medium"


@pytest.mark.parametrize("content", [b"", b"not json", b'{"key": 1}', b'{"key": "%s", "base": {"entries": 3}}'])
def test_a_damaged_shipped_base_is_passed_over(shipped: Path, content: bytes) -> None:
    knowledge = shipped
    key = json.loads((knowledge / SHIPPED).read_bytes())["key"]
    (knowledge / SHIPPED).write_bytes(content.replace(b"%s", key.encode()))
    loader = CountingLoader()
    again, notes = load_stored(knowledge, None, loader)
    assert loader.calls == 1 and notes == () and again.entries == load_entries(knowledge)


def test_a_knowledge_base_that_does_not_load_is_never_shipped(knowledge: Path, tmp_path: Path) -> None:
    (knowledge / "broken.toml").write_text('id = "x"\n', "utf-8")
    with pytest.raises(KnowledgeError):
        ship(knowledge, tmp_path / SHIPPED)
    assert not (tmp_path / SHIPPED).exists()


@pytest.mark.slow
@pytest.mark.network  # the build's own environment: hatchling and the loader's dependencies
@pytest.mark.xdist_group("wheel")  # one build for the tests that read the wheel (`built_wheel`)
def test_the_built_wheel_ships_the_checked_base_of_its_knowledge(tmp_path: Path, built_wheel: Path) -> None:
    import zipfile

    repository = Path(__file__).resolve().parents[2]
    wheel = built_wheel
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    loader = CountingLoader()
    shipped, notes = load_stored(unpacked / "auditor" / "_knowledge", None, loader)
    assert notes == () and shipped.entries == load_entries(repository / "knowledge")
    assert loader.calls == 0  # the wheel's code and files are the checkout's: its key holds
    from auditor.harvest.coverage import generated_candidates
    from auditor.knowledge.stored import GENERATED

    generated = json.loads((unpacked / "auditor" / "_knowledge" / GENERATED).read_bytes())
    assert generated["key"] == json.loads((unpacked / "auditor" / "_knowledge" / SHIPPED).read_bytes())["key"]
    assert [d["id"] for d in generated["base"]] == [
        c.id for c in generated_candidates(repository / "knowledge", load_entries(repository / "knowledge"))]


class RunsCode:
    """Unpickling this creates a file: what a pickle-reading cache would do with it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize(
    "content",
    [b"", b"not json", b"1", b'{"entries": [["x.toml", {}]], "horizon": {}}', b'{"entries": [], "horizon": 3}', "pickle"],
)
def test_a_damaged_store_is_read_again_and_said_once(knowledge: Path, tmp_path: Path, content: bytes | str) -> None:
    loader = CountingLoader()
    first, _ = load_stored(knowledge, tmp_path / "cache", loader)
    (stored,) = kept(tmp_path / "cache")
    marker = tmp_path / "code-ran"
    stored.write_bytes(pickle.dumps(RunsCode(marker)) if content == "pickle" else content)
    again, notes = load_stored(knowledge, tmp_path / "cache", loader)
    assert again.entries == first.entries and loader.calls == 2
    assert not marker.exists()
    (note,) = notes
    assert str(stored) in note and "damaged" in note
    assert load_stored(knowledge, tmp_path / "cache", loader)[1] == ()  # kept again, sound


def test_a_store_that_cannot_be_read_is_said(knowledge: Path, tmp_path: Path) -> None:
    first, _ = load_stored(knowledge, tmp_path / "cache", read_knowledge)
    (stored,) = kept(tmp_path / "cache")
    stored.unlink()
    stored.mkdir()  # reading it fails, and so does writing it
    again, notes = load_stored(knowledge, tmp_path / "cache", read_knowledge)
    assert again.entries == first.entries and again is not first
    (note,) = notes
    assert "cannot be read" in note and str(stored) in note


def test_a_cache_that_cannot_be_written_is_said_not_raised(knowledge: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would be")
    kb = KnowledgeBase.load(knowledge, cache_dir=blocked)
    assert kb.entries == load_entries(knowledge)
    (note,) = kb.notes
    assert "cannot keep the knowledge base" in note and str(blocked) in note


def test_commands_say_once_when_the_kept_base_cannot_be_used(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would be")
    scanned = CliRunner().invoke(
        app, ["scan", str(tmp_path), "--from", "1.12.1", "--to", "1.13.0", "-f", "json", "--cache-dir", str(blocked)]
    )
    notes = [n for n in json.loads(scanned.stdout)["notes"] if "knowledge base" in n]
    assert len(notes) == 1 and str(blocked) in notes[0]
    listed = CliRunner().invoke(app, ["kb", "list"], env={"XDG_CACHE_HOME": str(blocked)})
    assert listed.exit_code == 0
    assert listed.stderr.count("auditor: warning: cannot keep the knowledge base") == 1
    assert "torch-floor-divide-rounds-toward-floor" in listed.stdout
