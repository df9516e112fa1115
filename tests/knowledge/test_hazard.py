"""The hazard model: in which way across a change each kind can hurt code, and which harmless
crossings are good news. Entries are read from real TOML text through the loader."""

import shutil
from pathlib import Path

import pytest
import tomllib
from packaging.version import Version

from auditor.errors import KnowledgeError
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import HAZARD_OF_KIND, KINDS, SpecChange
from auditor.knowledge.loader import default_directory, load_entries, parse_entry
from auditor.models import Transition

SEED = default_directory() / "torch" / "1.13" / "floor-divide-rounds-toward-floor" / "change.toml"
UP = Transition("torch", Version("1.12.1"), Version("1.13.0"))
DOWN = Transition("torch", Version("1.13.0"), Version("1.12.1"))


def entry(kind: str, until: str | None = None, hazard: str | None = None) -> SpecChange:
    raw = tomllib.loads(SEED.read_text())
    raw["kind"] = kind
    if until is not None:
        raw["until"] = until
    if hazard is not None:
        raw["hazard"] = hazard
    parsed, problems = parse_entry(raw, "seed.toml")
    assert parsed is not None, problems
    return parsed


# kind -> (a finding on upgrade, on downgrade, good news on upgrade)
TABLE = {
    "behaviour": (True, True, False),
    "default-changed": (True, True, False),
    "removed": (True, False, False),
    "now-raises": (True, False, False),
    "python-support": (True, False, False),
    "deprecated": (True, False, False),  # a warning appears; on the way back it goes away
    "added": (False, True, False),  # nothing new to use is no news
    "made-public": (False, True, True),
    "warning-removed": (False, True, True),
    "undeprecated": (False, True, True),
}


def test_the_table_covers_every_kind() -> None:
    assert set(TABLE) == set(KINDS)


@pytest.mark.parametrize("kind", sorted(TABLE))
def test_direction_of_each_kind(kind: str) -> None:
    hurts_up, hurts_down, good_up = TABLE[kind]
    change = entry(kind)
    assert change.crossed_by(UP) is hurts_up
    assert change.crossed_by(DOWN) is hurts_down
    assert change.good_news_for(UP) is good_up
    assert change.good_news_for(DOWN) is False  # a downgrade is never good news


def test_a_warning_that_ends_on_upgrade_is_good_news_not_a_finding() -> None:
    """A deprecation's `until` crossed upwards: the warning goes away (issue 13 item 6)."""
    warns = entry("deprecated", until="1.14.0")
    leaving = Transition("torch", Version("1.13.1"), Version("1.14.0"))
    assert not warns.crossed_by(leaving)
    assert warns.good_news_for(leaving)
    returning = Transition("torch", Version("1.14.0"), Version("1.13.1"))
    assert warns.crossed_by(returning)  # the warning comes back on the way down


def test_a_reverted_behaviour_hurts_when_it_ends_too() -> None:
    reverted = entry("behaviour", until="1.14.0")
    assert reverted.crossed_by(Transition("torch", Version("1.13.1"), Version("1.14.0")))


def test_an_entry_states_its_hazard_where_the_kind_does_not_settle_it() -> None:
    warns = entry("behaviour", hazard="upgrade")
    assert warns.crossed_by(UP) and not warns.crossed_by(DOWN)


def test_shipped_entries_carry_the_kind_hazard_unless_stated() -> None:
    kb = KnowledgeBase.load()
    stated = {"torch-transformer-encoder-nested-tensor-warns": "upgrade",
              "torch-dataloader-pin-memory-without-accelerator-warns": "upgrade",
              "torch-tensor-int64-overflow-raises-valueerror": "both"}
    for change in kb.entries:
        if change.id in stated:
            assert change.hazard == stated[change.id]
        else:
            assert change.hazard == HAZARD_OF_KIND[change.kind], change.id
    assert kb.get("torch-distributed-tensor-public").kind == "made-public"
    assert kb.get("torch-functional-sigmoid-tanh-undeprecated").kind == "undeprecated"


def test_follows_must_name_an_earlier_entry_of_the_same_package(tmp_path: Path) -> None:
    text = SEED.read_text()
    shutil.copy(SEED, tmp_path / "a.toml")
    (tmp_path / "b.toml").write_text(
        text.replace('id = "torch-floor-divide-rounds-toward-floor"', 'id = "torch-copy-b"')
        .replace('symbols = [', 'follows = ["torch-no-such-entry"]\nsymbols = [', 1)
    )
    (tmp_path / "c.toml").write_text(
        text.replace('id = "torch-floor-divide-rounds-toward-floor"', 'id = "torch-copy-c"')
        .replace('symbols = [', 'follows = ["torch-floor-divide-rounds-toward-floor"]\nsymbols = [', 1)
    )
    with pytest.raises(KnowledgeError) as caught:
        load_entries(tmp_path)
    problems = "\n".join(caught.value.problems)
    assert "b.toml: follows: no entry with id 'torch-no-such-entry'" in problems
    assert "c.toml: follows: 'torch-floor-divide-rounds-toward-floor' is torch 1.13.0, not an earlier release" in problems
