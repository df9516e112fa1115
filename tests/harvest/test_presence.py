"""What `hasattr(module, "name")` finds per release, from wheels built here: the harvest's
presence table (`auditor.harvest.presence`), its reader (`auditor.knowledge.presence`), and the
version guards that read such a test (`if hasattr(nn.utils.parametrizations, "weight_norm"):`)."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from packaging.version import Version

from auditor.harvest.model import Harvest, Release
from auditor.harvest.presence import presence
from auditor.harvest.run import harvest_wheel
from auditor.harvest.shipped import ship
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.knowledge.presence import NOTHING, Presence
from auditor.scan import RuleIndex, scan_source
from auditor.scan.rules import transition_ends
from tests.harvest.wheels import write_wheel

INIT = "tool/__init__.py"
RELEASES = {
    "1.0": {INIT: "from .core import run\n", "tool/core.py": "def run():\n    pass\n"},
    "1.1": {INIT: "from .core import run\n", "tool/core.py": "def run():\n    pass\n\ndef fast():\n    pass\n",
            "tool/extra.py": "from .core import fast\n"},
    "1.2": {INIT: "from .core import run\nfrom . import extra\n", "tool/core.py": "def run():\n    pass\n\ndef fast():\n    pass\n",
            "tool/extra.py": "def helper():\n    pass\n"},
    "2.0": {INIT: "from .core import run\nfrom . import extra\n", "tool/core.py": "def fast():\n    pass\n",
            "tool/extra.py": "def helper():\n    pass\n"},
}
STUBBED = {**RELEASES["2.0"], "tool/_C/__init__.pyi": "def native() -> None: ...\n"}


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> list[Release]:
    directory = tmp_path_factory.mktemp("wheels")
    return [harvest_wheel(write_wheel(directory, "tool", version, files, "macosx_11_0_arm64"), "tool", version)
            for version, files in RELEASES.items()]


def test_a_name_is_listed_with_each_change_of_its_presence(releases: list[Release]) -> None:
    table = presence(releases)
    assert table["tool.core.fast"] == ["-1.0", "+1.1"]  # added in 1.1
    assert table["tool.core.run"] == ["+1.0", "-2.0"]  # removed in 2.0
    # an imported binding is there as much as a definition; before its module, nothing is known
    assert table["tool.extra.fast"] == ["?1.0", "+1.1", "-1.2"]
    assert table["tool.extra.helper"] == ["?1.0", "-1.1", "+1.2"]
    assert "tool.run" not in table  # there in every release: a test of it is no version test
    # a submodule is an attribute once anything imports it, bound in its package (1.2 on) or not
    assert "tool.extra" not in table


def test_a_release_without_the_stubs_later_ones_ship_cannot_show_an_absence(
    releases: list[Release], tmp_path: Path,
) -> None:
    """2.1 ships a stub: the releases before it, which have none, might hold C names unseen."""
    later = harvest_wheel(write_wheel(tmp_path, "tool", "2.1", STUBBED, "macosx_11_0_arm64"), "tool", "2.1")
    assert later.stubs
    table = presence([*releases, later])
    assert "tool.core.fast" not in table  # absent in 1.0 is not known: present in every release that can show it
    assert table["tool.core.run"] == ["+1.0", "?2.0", "-2.1"]  # present is present


def test_the_shipped_table_is_read_release_by_release(releases: list[Release], tmp_path: Path) -> None:
    ship(Harvest("tool", tuple(releases), (), (), ()), tmp_path)
    path = tmp_path / "tool" / "harvest" / "presence.json"
    assert json.loads(path.read_text("utf-8"))["names"]["tool.core.fast"] == ["-1.0", "+1.1"]
    known = Presence(str(tmp_path))
    assert known.known("tool.core.fast") and not known.known("tool.run")
    assert [known.present("tool.core.fast", Version(v)) for v in ("1.0", "1.1", "1.1.5", "2.0.3")] == [False, True, True, True]
    assert known.present("tool.core.run", Version("2.0+cpu")) is False
    assert known.present("tool.extra.helper", Version("1.0")) is None  # its module is missing
    assert known.present("tool.core.fast", Version("0.9")) is None  # before the harvest
    assert known.present("tool.core.fast", Version("2.1")) is None  # past its newest minor release
    assert NOTHING.present("tool.core.fast", Version("1.1")) is None
    assert Presence(str(tmp_path)).digest == known.digest
    path.write_text(path.read_text("utf-8").replace('"+1.1"', '"+1.2"'), "utf-8")
    assert Presence(str(tmp_path)).digest != known.digest  # what the scan cache's context tells apart


# -- read as a version guard, with torch's shipped table ----------------------------------------

WEIGHT_NORM = "torch-nn-deprecation-warnings-become-futurewarning"  # nn.utils.weight_norm warns FutureWarning


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def found(changes: tuple[SpecChange, ...], old: str, new: str, presence: Presence) -> list[int]:
    ends = transition_ends([("torch", Version(old), Version(new), None)])
    index = RuleIndex.build(changes, ends=ends, presence=presence)
    return sorted(f.line for f in scan_source(textwrap.dedent(FEATURE_TEST), "m.py", index))


FEATURE_TEST = """
    import torch
    from torch import nn

    def direct(conv):
        if not hasattr(torch.nn.utils.parametrizations, "weight_norm"):
            return torch.nn.utils.weight_norm(conv)
        return conv

    class Block(nn.Module):
        def __init__(self, conv):
            super().__init__()
            if hasattr(nn.utils.parametrizations, "weight_norm"):
                weight_norm = nn.utils.parametrizations.weight_norm
            else:
                weight_norm = nn.utils.weight_norm
            self.conv = weight_norm(conv)

    def plain(conv):
        return nn.utils.weight_norm(conv)
"""


def test_the_old_spelling_behind_a_feature_test_runs_only_before_the_new_one_appeared(kb: KnowledgeBase) -> None:
    """parametrizations.weight_norm is torch 2.1.0's: the fallback runs before 2.1 only, where
    nn.utils.weight_norm does not warn yet; the unguarded call is still reported."""
    assert kb.presence.present("torch.nn.utils.parametrizations.weight_norm", Version("2.0.1")) is False
    assert kb.presence.present("torch.nn.utils.parametrizations.weight_norm", Version("2.1.0")) is True
    change = next(c for c in kb.entries if c.id == WEIGHT_NORM)
    assert Version("2.1") <= change.introduced <= Version("2.15")
    assert found((change,), "1.10", "2.15", kb.presence) == [20]
    assert found((change,), "1.10", "2.15", NOTHING) == [7, 17, 20]  # without the table: not read
    assert found((change,), "2.2", "2.15", kb.presence) == [20]  # the fallback is dead at both ends


def test_a_feature_test_that_fails_at_both_ends_leaves_the_fallback_running(kb: KnowledgeBase) -> None:
    """Both ends before 2.1 (the change moved to 1.11 to be crossed): the fallback runs on both,
    and what changes in it is reported; the new spelling's branch is dead."""
    change = replace(next(c for c in kb.entries if c.id == WEIGHT_NORM), introduced=Version("1.11.0"))
    assert found((change,), "1.10", "2.0.1", kb.presence) == [7, 17, 20]


def test_the_scan_cache_keeps_results_per_presence_table(kb: KnowledgeBase, tmp_path: Path) -> None:
    """A result found with one table is not served to a scan with another (an edited harvest)."""
    from auditor.scan import scan_project
    from auditor.scan.project import ScanOptions

    change = next(c for c in kb.entries if c.id == WEIGHT_NORM)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "m.py").write_text(textwrap.dedent(FEATURE_TEST), "utf-8")
    ends = transition_ends([("torch", Version("1.10"), Version("2.15"), None)])
    options = ScanOptions(cache_dir=tmp_path / "cache", workers=1)

    def lines(presence: Presence) -> list[int]:
        findings, _ = scan_project(tmp_path / "project", (change,), options=options, ends=ends, presence=presence)
        return sorted(f.line for f in findings)

    assert lines(kb.presence) == [20]
    assert lines(NOTHING) == [7, 17, 20]
    assert lines(kb.presence) == [20]
