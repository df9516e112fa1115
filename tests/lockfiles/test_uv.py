"""uv.lock: the same name locked twice under different markers and indexes."""

import pytest
from lockfixtures import pins, read
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles.uv import parse


def test_forked_torch_is_two_pins_with_their_markers_and_indexes() -> None:
    lock = read("uv/forks-old/uv.lock")
    assert lock.format == "uv.lock" and lock.python == ">=3.9"
    torch = {str(p.version): p for p in pins(lock, "torch")}
    assert set(torch) == {"2.6.0", "2.6.0+cu124"}
    assert torch["2.6.0"].marker == 'sys_platform == \"darwin\"' and torch["2.6.0"].source is None
    assert torch["2.6.0+cu124"].marker == 'sys_platform != \"darwin\"'
    assert torch["2.6.0+cu124"].source == "https://download.pytorch.org/whl/cu124"
    assert torch["2.6.0+cu124"].groups == ("main",)


def test_the_project_itself_is_not_a_pin_and_dev_groups_are_kept() -> None:
    lock = read("uv/forks-old/uv.lock")
    assert not pins(lock, "server")
    assert pins(lock, "pytest")[0].groups == ("dev",)
    assert pins(lock, "filelock")[0].groups == ()  # transitive


def test_without_resolution_markers_the_edges_give_the_marker(tmp_path) -> None:
    target = tmp_path / "uv.lock"
    target.write_text(
        'version = 1\n\n[[package]]\nname = "app"\nversion = "0.1.0"\nsource = { virtual = "." }\n'
        "dependencies = [\n"
        '  { name = "torch", version = "2.5.1", source = { registry = "https://pypi.org/simple" }, marker = "sys_platform == \'darwin\'" },\n'
        '  { name = "torch", version = "2.5.1+cpu", source = { registry = "https://download.pytorch.org/whl/cpu" }, marker = "sys_platform == \'linux\'" },\n'
        "]\n\n"
        '[[package]]\nname = "torch"\nversion = "2.5.1"\nsource = { registry = "https://pypi.org/simple" }\n\n'
        '[[package]]\nname = "torch"\nversion = "2.5.1+cpu"\nsource = { registry = "https://download.pytorch.org/whl/cpu" }\n'
    )
    torch = {str(p.version): p.marker for p in parse(target, target.read_text()).pins}
    assert torch == {"2.5.1": 'sys_platform == \"darwin\"', "2.5.1+cpu": 'sys_platform == \"linux\"'}


def test_git_source_keeps_the_commit(tmp_path) -> None:
    target = tmp_path / "uv.lock"
    target.write_text(
        'version = 1\n\n[[package]]\nname = "visionkit"\nversion = "0.2.0"\n'
        'source = { git = "https://github.com/example/visionkit?rev=main#5d1e6f0c" }\n'
    )
    (pin,) = parse(target, target.read_text()).pins
    assert pin.version == Version("0.2.0") and pin.source.endswith("#5d1e6f0c")


def test_an_unknown_version_is_refused(tmp_path) -> None:
    target = tmp_path / "uv.lock"
    target.write_text("version = 2\n")
    with pytest.raises(LockfileError, match="unsupported uv.lock version 2"):
        parse(target, target.read_text())


def test_merge_conflict_markers_are_an_error_with_the_line() -> None:
    with pytest.raises(LockfileError) as caught:
        read("bad/conflict-uv/uv.lock")
    assert (caught.value.line, caught.value.message) == (7, "unresolved merge conflict marker")


def test_an_empty_uv_lock_is_an_error() -> None:
    with pytest.raises(LockfileError, match="uv.lock:1: empty file"):
        read("bad/empty-uv/uv.lock")
