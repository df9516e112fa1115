"""pdm.lock 4.x: groups, markers, git revisions."""

import pytest
from lockfixtures import pins, read, versions

from auditor.errors import LockfileError
from auditor.lockfiles.pdm import parse


def test_groups_markers_and_git_revision() -> None:
    lock = read("pdm/basic/pdm.lock")
    assert lock.format == "pdm.lock"
    assert versions(lock) == {
        "numpy": "1.26.4",
        "pytest": "8.0.2",
        "torch": "2.2.1",
        "visionkit": "0.2.0",
    }
    assert pins(lock, "torch")[0].marker == 'python_version < "3.13"'
    assert pins(lock, "pytest")[0].groups == ("dev",)
    assert pins(lock, "visionkit")[0].source == (
        "git+https://github.com/example/visionkit.git@5d1e6f0c3b2a41e8a9f7c6d5b4a3928170f6e5d4"
    )


def test_a_package_without_a_name_is_an_error_with_its_line(tmp_path) -> None:
    target = tmp_path / "pdm.lock"
    target.write_text('[metadata]\nlock_version = "4.4.1"\n\n[[package]]\nversion = "1.0"\n')
    with pytest.raises(LockfileError) as caught:
        parse(target, target.read_text())
    assert (caught.value.line, caught.value.message) == (4, "package[0].name: missing")
