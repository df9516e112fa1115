"""The shipped horizon of each package is not older than the newest release recorded for it in
newest_releases.toml (no network: the file is updated when a release is reviewed)."""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RECORDED = Path(__file__).with_name("newest_releases.toml")


def _recorded() -> dict[str, Version]:
    return {name: Version(row["release"]) for name, row in tomllib.loads(RECORDED.read_text("utf-8")).items()}


def test_every_package_with_a_horizon_has_a_recorded_newest_release(kb: KnowledgeBase) -> None:
    assert set(kb.horizon) == set(_recorded())


def test_no_horizon_is_older_than_the_newest_recorded_release(kb: KnowledgeBase) -> None:
    behind = {name: f"horizon {kb.horizon[name]}, newest {newest}" for name, newest in _recorded().items()
              if name in kb.horizon and kb.horizon[name] < newest}
    assert not behind
