"""poetry.lock for every lock-version: 1.0, 1.1, 2.0, 2.1."""

import pytest
from lockfixtures import pins, read, versions
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles.poetry import parse


def test_lock_1_0_without_a_lock_version_uses_category() -> None:
    lock = read("poetry/lock-1.0/poetry.lock")
    assert versions(lock) == {"torch": "1.8.1", "torchvision": "0.9.1", "pytest": "6.2.3"}
    assert pins(lock, "pytest")[0].groups == ("dev",) and pins(lock, "torch")[0].groups == ("main",)
    assert lock.python == "^3.8"
    assert [p.line for p in lock.pins] == [1, 13, 26]


def test_lock_1_1() -> None:
    lock = read("poetry/lock-1.1/poetry.lock")
    assert versions(lock) == {"numpy": "1.23.5", "torch": "1.12.1", "typing-extensions": "4.4.0"}


def test_lock_2_0_legacy_source_cpu_build_and_git() -> None:
    lock = read("poetry/lock-2.0/poetry.lock")
    torch = pins(lock, "torch")[0]
    assert (
        torch.version == Version("2.0.1+cpu")
        and torch.source == "https://download.pytorch.org/whl/cpu"
    )
    visionkit = pins(lock, "visionkit")[0]
    assert (
        visionkit.source
        == "git+https://github.com/example/visionkit.git@5d1e6f0c3b2a41e8a9f7c6d5b4a3928170f6e5d4"
    )
    assert torch.groups == ()  # 2.0 has neither category nor groups


def test_lock_2_1_groups_markers_and_a_name_locked_twice() -> None:
    lock = read("poetry/lock-2.1-groups/poetry.lock")
    torch = {str(p.version): p for p in pins(lock, "torch")}
    assert torch["2.5.1+cpu"].marker == 'sys_platform == "linux"'
    assert torch["2.5.1"].marker == 'sys_platform == "darwin"' and torch["2.5.1"].source is None
    assert pins(lock, "pytest")[0].groups == ("dev",)
    typing = pins(lock, "typing-extensions")[0]
    assert typing.groups == ("main", "dev")
    assert typing.marker == 'python_version < "3.11" or python_version < "3.13"'


def test_an_unknown_lock_version_is_refused(tmp_path) -> None:
    target = tmp_path / "poetry.lock"
    target.write_text('[metadata]\nlock-version = "3.0"\n')
    with pytest.raises(LockfileError, match="unsupported poetry lock-version '3.0'"):
        parse(target, target.read_text())


def test_invalid_toml_names_the_line() -> None:
    with pytest.raises(LockfileError) as caught:
        read("bad/invalid-poetry/poetry.lock")
    assert caught.value.message.startswith("invalid TOML") and caught.value.line == 6


def test_a_bad_version_names_the_package_line(tmp_path) -> None:
    target = tmp_path / "poetry.lock"
    target.write_text(
        '[[package]]\nname = "torch"\nversion = "2.0.1"\n\n[[package]]\nname = "numpy"\nversion = "one"\n'
    )
    with pytest.raises(LockfileError) as caught:
        parse(target, target.read_text())
    assert (caught.value.line, caught.value.message) == (5, "invalid version 'one'")


POETRY_TORCH = """[[package]]
name = "torch"
version = "{version}"
description = ""
optional = false
python-versions = ">=3.9"
{markers}files = []

[metadata]
lock-version = "{lock_version}"
python-versions = "^3.9"
content-hash = "0"
"""


def test_markers_written_for_the_first_time_are_not_a_removal(tmp_path) -> None:
    """A poetry 1.8 lock (2.0) records no markers; the 2.1 lock written by poetry 2 does. Torch
    is then not removed on macOS and Windows: the old lock installed it where the new one does."""
    from auditor.lockfiles.diff import diff_locks

    old_path, new_path = tmp_path / "old.lock", tmp_path / "new.lock"
    old_path.write_text(POETRY_TORCH.format(version="2.4.0", markers="", lock_version="2.0"), "utf-8")
    marker = 'markers = "extra == \\"torch\\" or sys_platform == \\"linux\\""\n'
    new_path.write_text(POETRY_TORCH.format(version="2.6.0", markers=marker, lock_version="2.1"), "utf-8")
    old, new = parse(old_path, old_path.read_text()), parse(new_path, new_path.read_text())
    assert (old.markers, new.markers) == (False, True)
    moves = {(str(t.old), str(t.new)) for t in diff_locks(old, new).packages if t.package == "torch"}
    assert moves == {("2.4.0", "2.6.0")}
    assert not [e for e in diff_locks(old, new).environment if e.kind == "package-removed"]
