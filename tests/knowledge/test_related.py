"""`related` names other entries worth reading beside one: loaded, and each id must exist."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from auditor.errors import KnowledgeError
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.loader import default_directory, load_entries

SEED = default_directory() / "torch" / "1.13" / "floor-divide-rounds-toward-floor" / "change.toml"
SEED_ID = "torch-floor-divide-rounds-toward-floor"


def _copy(tmp_path: Path, name: str, related: str) -> None:
    text = SEED.read_text("utf-8")
    (tmp_path / name).write_text(
        text.replace(f'id = "{SEED_ID}"', f'id = "torch-copy-{name[0]}"')
        .replace("symbols = [", f"related = [{related}]\nsymbols = [", 1),
        "utf-8",
    )


def test_related_names_entries_that_exist(tmp_path: Path) -> None:
    shutil.copy(SEED, tmp_path / "a.toml")
    _copy(tmp_path, "b.toml", '"torch-no-such-entry"')
    with pytest.raises(KnowledgeError) as caught:
        load_entries(tmp_path)
    assert f"{tmp_path.name}/b.toml: related: no entry with id 'torch-no-such-entry'" in caught.value.problems


def test_related_is_loaded(tmp_path: Path) -> None:
    shutil.copy(SEED, tmp_path / "a.toml")
    _copy(tmp_path, "b.toml", f'"{SEED_ID}"')
    by_id = {e.id: e for e in load_entries(tmp_path)}
    assert by_id["torch-copy-b"].related == (SEED_ID,)
    assert by_id[SEED_ID].related == ()


def test_the_shipped_entries_relate_to_shipped_entries() -> None:
    kb = KnowledgeBase.load()
    ids = {e.id for e in kb.entries}
    related = [r for e in kb.entries for r in e.related]
    assert len(related) >= 100 and set(related) <= ids
