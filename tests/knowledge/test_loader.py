"""Knowledge files: the shipped ones load; bad ones are all reported at once, by file and field."""

import re
import shutil
from pathlib import Path

import pytest

from auditor.errors import KnowledgeError
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.loader import default_directory, load_entries

SEED = default_directory() / "torch" / "1.13" / "floor-divide-rounds-toward-floor" / "change.toml"


def test_shipped_knowledge_loads_and_every_entry_is_complete(kb: KnowledgeBase) -> None:
    assert len(kb.entries) >= 7
    for entry in kb.entries:
        assert entry.references and all(r.startswith("https://") for r in entry.references)
        assert entry.docs.keep_old and entry.docs.adopt_new
        if entry.requires_python is None:  # wheel-support entries have nothing to probe
            assert entry.probe is not None or entry.doubt, f"{entry.id} has neither probe nor doubt"


def test_every_bad_entry_is_reported_at_once(tmp_path: Path) -> None:
    shutil.copy(SEED, tmp_path / "a-good.toml")
    text = SEED.read_text()
    (tmp_path / "no-references.toml").write_text(
        text.replace('id = "torch-floor-divide-rounds-toward-floor"', 'id = "torch-copy-one"')
        .replace("references = [", "refs = [")
    )
    (tmp_path / "bad-kind.toml").write_text(
        text.replace('id = "torch-floor-divide-rounds-toward-floor"', 'id = "torch-copy-two"')
        .replace('kind = "behaviour"', 'kind = "changed"')
    )
    (tmp_path / "broken.toml").write_text("id = \n")
    (tmp_path / "duplicate.toml").write_text(text)
    with pytest.raises(KnowledgeError) as caught:
        load_entries(tmp_path)
    problems = "\n".join(caught.value.problems)
    assert "no-references.toml" in problems and "'references' is a required property" in problems
    assert "bad-kind.toml" in problems and "kind" in problems
    assert "broken.toml" in problems
    assert "duplicate.toml" in problems and "also the id of" in problems
    assert "a-good.toml:" not in problems


def test_invalid_version_and_until_before_introduced(tmp_path: Path) -> None:
    text = SEED.read_text()
    (tmp_path / "a.toml").write_text(text.replace('introduced = "1.13.0"', 'introduced = "one"'))
    (tmp_path / "b.toml").write_text(
        text.replace('id = "torch-floor-divide-rounds-toward-floor"', 'id = "torch-copy-b"')
        .replace('introduced = "1.13.0"', 'introduced = "1.13.0"\nuntil = "1.12.0"')
    )
    with pytest.raises(KnowledgeError) as caught:
        load_entries(tmp_path)
    problems = "\n".join(caught.value.problems)
    assert "invalid version 'one'" in problems
    assert "is not after introduced" in problems


def test_empty_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError):
        load_entries(tmp_path)


def test_each_symbol_is_one_matcher_per_symbol(tmp_path):
    entry = tmp_path / "torch" / "2.2" / "lr-scheduler-verbose-deprecated" / "change.toml"
    entry.parent.mkdir(parents=True)
    source = (default_directory() / "torch" / "2.2" / "lr-scheduler-verbose-deprecated" / "change.toml").read_text("utf-8")
    source = re.sub(r"^related = .*\n", "", source, flags=re.MULTILINE)  # alone here: its related entries are not
    entry.write_text(source, "utf-8")
    (change,) = load_entries(tmp_path)
    assert [m.call for m in change.matches] == list(change.symbols)
    assert {m.when.keyword_present for m in change.matches} == {("verbose",)}
    # each_symbol names the callee: it cannot come with a call of its own
    entry.write_text(source.replace("each_symbol = true", 'each_symbol = true\ncall = "torch.optim.SGD"'), "utf-8")
    with pytest.raises(KnowledgeError, match="match"):
        load_entries(tmp_path)


def test_an_entry_in_a_change_folder_has_the_id_the_folder_gives(tmp_path):
    folder = tmp_path / "torch" / "1.13" / "floor-divide"
    folder.mkdir(parents=True)
    shutil.copy(SEED, folder / "change.toml")
    with pytest.raises(KnowledgeError) as caught:
        load_entries(tmp_path)
    says = (f"{tmp_path.name}/torch/1.13/floor-divide/change.toml: id: 'torch-floor-divide-rounds-toward-floor' is not"
            " 'torch-floor-divide', the id its folder gives (<package>-<stem>): rename the folder or the id")
    assert caught.value.problems == [says]
    folder.rename(folder.with_name("floor-divide-rounds-toward-floor"))
    assert [e.id for e in load_entries(tmp_path)] == ["torch-floor-divide-rounds-toward-floor"]


def test_every_shipped_entry_is_in_its_own_folder():
    root = default_directory()
    entries = load_entries(root)
    assert sorted(e.source for e in entries) == sorted(
        f"{e.package}/{e.introduced.major}.{e.introduced.minor}/{e.id.removeprefix(e.package + '-')}/change.toml"
        for e in entries
    )
