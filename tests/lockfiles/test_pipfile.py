"""Pipfile.lock: default and develop, markers, named indexes, file and VCS entries."""

import json
from pathlib import Path

import pytest
from lockfixtures import pins, read, versions
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles import diff_locks, read_lock
from auditor.lockfiles.pipfile import parse


def test_registry_pins_with_index_markers_and_groups() -> None:
    lock = read("pipfile/cu118/Pipfile.lock")
    assert lock.format == "Pipfile.lock" and lock.python == "3.10"
    assert versions(lock) == {
        "numpy": "1.26.0",
        "torch": "2.0.1+cu118",
        "torchvision": "0.15.2+cu118",
        "pytest": "7.4.2",
    }
    torch = pins(lock, "torch")[0]
    assert torch.source == "https://download.pytorch.org/whl/cu118" and torch.groups == ("default",)
    numpy = pins(lock, "numpy")
    assert len(numpy) == 1 and numpy[0].groups == ("default", "develop")  # in both: one pin
    assert numpy[0].marker == 'python_version >= \"3.9\"' and numpy[0].source is None  # PyPI
    assert pins(lock, "pytest")[0].groups == ("develop",)
    assert torch.line == 32


def test_file_and_vcs_entries() -> None:
    lock = read("pipfile/vcs-and-file/Pipfile.lock")
    assert pins(lock, "torch")[0].version == Version("2.1.2+cu121")
    visionkit = pins(lock, "visionkit")[0]
    assert visionkit.version is None
    assert (
        visionkit.source
        == "git+https://github.com/example/visionkit.git@5d1e6f0c3b2a41e8a9f7c6d5b4a3928170f6e5d4"
    )
    assert pins(lock, "localpkg")[0].source == "./localpkg"


def test_a_range_written_into_the_lock_is_an_unpinned_requirement(tmp_path) -> None:
    """A real lock had `"version": ">=0.4.1"` after its Pipfile's pin became a floor."""
    old, new = tmp_path / "old" / "Pipfile.lock", tmp_path / "Pipfile.lock"
    old.parent.mkdir()
    old.write_text('{"_meta": {}, "default": {\n  "torch": {"version": "==2.0.1"}\n}}')
    new.write_text('{"_meta": {}, "default": {\n  "torch": {"version": ">=2.0"}\n}}')
    [torch] = parse(new, new.read_text()).pins
    assert (torch.version, torch.specifier, torch.line) == (None, ">=2.0", 2)
    diff = diff_locks(read_lock(old), read_lock(new))
    assert [t.direction for t in diff.transition("torch")] == ["unpinned"]
    [floor] = [e for e in diff.environment if e.kind == "not-locked"]
    assert floor.gates and "does not pin torch (it asks for >=2.0)" in floor.message


def test_a_version_that_is_no_range_is_an_error(tmp_path) -> None:
    target = tmp_path / "Pipfile.lock"
    target.write_text('{"_meta": {}, "default": {\n  "torch": {"version": "latest"}\n}}')
    with pytest.raises(LockfileError) as caught:
        parse(target, target.read_text())
    assert caught.value.line == 2 and "default.torch.version" in caught.value.message


def test_truncated_json_names_the_line() -> None:
    with pytest.raises(LockfileError) as caught:
        read("bad/truncated-pipfile/Pipfile.lock")
    assert caught.value.message.startswith("invalid JSON") and caught.value.line == 26


def categories_lock(folder, version: str) -> Path:
    """pipenv's own categories (`pipenv install --categories cpu`): the CPU wheels from the
    pytorch index in `cpu`, the default ones in `gpu`."""
    folder.mkdir()
    entry = {"hashes": ["sha256:" + "0" * 64], "index": "pytorch", "version": f"=={version}+cpu"}
    lock = {
        "_meta": {
            "hash": {"sha256": "1" * 64}, "pipfile-spec": 6, "requires": {"python_version": "3.11"},
            "sources": [
                {"name": "pypi", "url": "https://pypi.org/simple", "verify_ssl": True},
                {"name": "pytorch", "url": "https://download.pytorch.org/whl/cpu", "verify_ssl": True},
            ],
        },
        "cpu": {"torch": entry},
        "default": {},
        "develop": {},
        "gpu": {"torch": {"hashes": ["sha256:" + "2" * 64], "index": "pypi",
                          "markers": "python_full_version >= '3.8.0'", "version": f"=={version}"}},
    }
    (folder / "Pipfile.lock").write_text(json.dumps(lock, indent=4))
    return folder / "Pipfile.lock"


def test_categories_name_the_variant(tmp_path: Path) -> None:
    old, new = categories_lock(tmp_path / "old", "2.5.0"), categories_lock(tmp_path / "new", "2.5.1")
    moves = {(str(t.old), str(t.new), t.variant) for t in diff_locks(read_lock(old), read_lock(new)).packages}
    assert moves == {("2.5.0+cpu", "2.5.1+cpu", "category cpu"), ("2.5.0", "2.5.1", "category gpu")}
