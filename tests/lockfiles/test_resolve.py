"""`--resolve`: unpinned inputs resolved to pins by pip-compile (needs PyPI)."""

import json
import re

import pytest
from lockfixtures import LOCKS
from packaging.version import Version
from typer.testing import CliRunner

from auditor.cli import app
from auditor.errors import LockfileError
from auditor.lockfiles import read_lock
from auditor.lockfiles.resolve import resolve


def test_a_lock_that_pins_everything_is_returned_as_it_is() -> None:
    lock = read_lock(LOCKS / "requirements/compiled/requirements.txt")
    assert resolve(lock) is lock


@pytest.mark.network
def test_ranges_in_a_requirements_in_resolve_to_pins(tmp_path) -> None:
    source = tmp_path / "requirements.in"
    source.write_text("six<1.17\nidna>=3,<3.5\n")
    lock = read_lock(source, resolve=True)
    assert {p.name: p.version for p in lock.pins} == {
        "six": Version("1.16.0"),
        "idna": Version("3.4"),
    }
    assert any(
        note.startswith("six: resolved <1.17 to 1.16.0 with pip-compile") for note in lock.notes
    )


@pytest.mark.network
def test_a_pyproject_resolves_through_its_dependencies(tmp_path) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_text('[project]\nname = "app"\nversion = "0"\ndependencies = ["six<1.17"]\n')
    result = CliRunner().invoke(app, ["lock", "show", str(target), "--resolve", "-f", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [(p["name"], p["version"]) for p in document["packages"]] == [("six", "1.16.0")]
    assert document["unpinned"] == [] and document["notes"]


@pytest.mark.network
def test_an_unresolvable_input_is_a_lockfile_error(tmp_path) -> None:
    source = tmp_path / "requirements.in"
    source.write_text("six<1.17\nsix>1.17\n")
    with pytest.raises(LockfileError, match="pip-compile could not resolve it"):
        read_lock(source, resolve=True)


@pytest.mark.network
def test_compare_says_what_it_resolved(tmp_path) -> None:
    old, new = tmp_path / "old.in", tmp_path / "new.in"
    old.write_text("numpy>=1.26,<1.27\n")
    new.write_text("numpy>=2.0,<2.1\n")
    command = ["compare", str(old), str(new), "--resolve", "--format", "json", "--fail-on", "none"]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [(t["package"], t["from"], t["to"]) for t in document["transitions"]] == [("numpy", "1.26.4", "2.0.2")]
    resolved, unchecked = document["notes"][:2], document["notes"][2:]
    assert [n.split(" with pip-compile")[0] for n in resolved] == [
        "old.in: numpy: resolved <1.27,>=1.26 to 1.26.4",
        "new.in: numpy: resolved <2.1,>=2.0 to 2.0.2",
    ]
    assert len(unchecked) == 1 and re.match(  # the generated numpy changes it did not check
        r"numpy 1\.26\.4 -> 2\.0\.2 also crosses [1-9][0-9]* changes generated from numpy's own released source", unchecked[0]
    )
