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
