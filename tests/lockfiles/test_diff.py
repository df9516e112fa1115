"""lock diff: every package change, how it changed, per environment, torch family first."""

import pytest
from lockfixtures import read
from packaging.version import Version as _v

from auditor.errors import UsageError
from auditor.lockfiles import Selection, diff_locks, read_lock
from auditor.models import Lock, Pin


def kinds(diff) -> dict[tuple[str, str | None], tuple[str, ...]]:
    return {(c.transition.package, c.transition.environment): c.kinds for c in diff.changes}


def test_uv_forks_are_compared_per_environment() -> None:
    diff = diff_locks(read("uv/forks-old/uv.lock"), read("uv/forks-new/uv.lock"))
    assert [(str(t.old), str(t.new), t.environment) for t in diff.transition("torch")] == [
        ("2.6.0+cu124", "2.7.0+cu128", 'sys_platform != "darwin"'),
        ("2.6.0", "2.7.0", 'sys_platform == "darwin"'),
    ]
    assert kinds(diff)[("torch", 'sys_platform != "darwin"')] == (
        "upgraded",
        "local-label",
        "source",
    )
    assert kinds(diff)[("torch", 'sys_platform == "darwin"')] == ("upgraded",)
    assert [t.package for t in diff.packages] == ["torch", "torch", "numpy"]  # torch first


@pytest.mark.parametrize(
    ("platform", "new"), [("darwin", "2.7.0"), ("linux", "2.7.0+cu128"), ("win32", "2.7.0+cu128")]
)
def test_platform_selects_one_environment(platform: str, new: str) -> None:
    diff = diff_locks(
        read("uv/forks-old/uv.lock"), read("uv/forks-new/uv.lock"), Selection(platform=platform)
    )
    assert [str(t.new) for t in diff.transition("torch")] == [new]


def test_python_version_selects_by_marker() -> None:
    old = Lock(
        "old",
        "requirements.txt",
        (
            Pin("torch", _v("2.0.1"), 'python_version < "3.11"'),
            Pin("torch", _v("2.1.0"), 'python_version >= "3.11"'),
        ),
    )
    new = Lock(
        "new",
        "requirements.txt",
        (
            Pin("torch", _v("2.0.1"), 'python_version < "3.11"'),
            Pin("torch", _v("2.2.0"), 'python_version >= "3.11"'),
        ),
    )
    assert diff_locks(old, new, Selection(python="3.10")).packages == ()
    (change,) = diff_locks(old, new, Selection(python="3.12")).packages
    assert (str(change.old), str(change.new)) == ("2.1.0", "2.2.0")


def test_conda_lock_platforms_are_environments() -> None:
    old, new = read("conda/conda-lock/conda-lock.yml"), read("conda/conda-lock-new/conda-lock.yml")
    assert kinds(diff_locks(old, new)) == {
        ("torch", "linux-64"): ("upgraded", "build"),
        ("torch", "osx-arm64"): ("build",),
    }
    only_mac = diff_locks(old, new, Selection(platform="osx-arm64"))
    assert [t.environment for t in only_mac.packages] == ["osx-arm64"]


def test_conda_export_build_changes_without_a_version_change() -> None:
    diff = diff_locks(
        read("conda/export/environment.yml"), read("conda/export/environment-new.yml")
    )
    change = next(c for c in diff.changes if c.transition.package == "torchvision")
    assert change.kinds == ("build",) and change.transition.direction == "unchanged"
    assert (change.old.build, change.new.build) == ("py310_cu118", "py310_cu121")


def test_poetry_1_1_to_2_0_added_removed_and_source() -> None:
    diff = diff_locks(read("poetry/lock-1.1/poetry.lock"), read("poetry/lock-2.0/poetry.lock"))
    assert kinds(diff) == {
        ("torch", None): ("upgraded", "local-label", "source"),
        ("numpy", None): ("upgraded",),
        ("typing-extensions", None): ("removed",),
        ("visionkit", None): ("added",),
    }
    assert [t.direction for t in diff.transition("typing-extensions")] == ["removed"]


def test_downgrade_and_label_only_change() -> None:
    old = Lock("old", "pip-freeze", (Pin("torch", _v("2.1.0+cu118")), Pin("numpy", _v("1.26.4"))))
    new = Lock("new", "pip-freeze", (Pin("torch", _v("2.1.0+cu121")), Pin("numpy", _v("1.26.0"))))
    diff = diff_locks(old, new)
    assert kinds(diff) == {("torch", None): ("local-label",), ("numpy", None): ("downgraded",)}
    assert [t.direction for t in diff.packages] == ["unchanged", "downgrade"]


def test_a_git_commit_change_is_a_source_change() -> None:
    old = Lock(
        "old", "uv.lock", (Pin("visionkit", _v("0.2.0"), source="https://github.com/x/v#aaa"),)
    )
    new = Lock(
        "new", "uv.lock", (Pin("visionkit", _v("0.2.0"), source="https://github.com/x/v#bbb"),)
    )
    assert kinds(diff_locks(old, new)) == {("visionkit", None): ("source",)}


def test_across_formats_a_missing_source_is_not_a_change() -> None:
    old = read("pip-freeze/cu117.txt")
    new = read("requirements/compiled/uv-compile.txt")  # pins the cu121 index as source
    diff = diff_locks(old, new)
    assert kinds(diff)[("torch", None)] == ("upgraded", "local-label")


def test_identical_locks_have_no_changes() -> None:
    lock = read("uv/forks-old/uv.lock")
    diff = diff_locks(lock, lock)
    assert diff.packages == () and diff.environment == ()


def test_an_unknown_platform_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown platform 'amiga'"):
        Selection(platform="amiga")


def test_torch_from_conda_and_from_pip_in_one_environment_are_paired_by_origin(tmp_path) -> None:
    conda = "  - pytorch=2.0.1=py3.10_cuda11.8_cudnn8.7.0_0\n"
    old, new = tmp_path / "old" / "environment.yml", tmp_path / "new" / "environment.yml"
    old.parent.mkdir()
    new.parent.mkdir()
    old.write_text(f"dependencies:\n{conda}  - pip:\n      - torch==2.1.0\n")
    new.write_text(f"dependencies:\n  - pip:\n      - torch==2.2.0\n{conda}")  # pip listed first
    diff = diff_locks(read_lock(old), read_lock(new))
    assert [(str(c.old.version), str(c.new.version), c.new.groups) for c in diff.changes] == [
        ("2.1.0", "2.2.0", ("pip",))
    ]


def test_per_cuda_requirement_files_compare_per_marker() -> None:
    old = read("requirements/serve-style/torch_cu117_linux.txt")
    new = read("requirements/serve-style/torch_cu118_linux.txt")
    diff = diff_locks(old, new)
    assert kinds(diff) == {
        ("torch", 'sys_platform == "linux"'): ("upgraded", "local-label"),
        ("torchvision", 'sys_platform == "linux"'): ("upgraded", "local-label"),
        ("torchaudio", 'sys_platform == "linux"'): ("upgraded", "local-label"),
    }
    assert diff_locks(old, new, Selection(platform="darwin")).packages == ()


def test_markers_pair_across_formats_whatever_their_quotes() -> None:
    old = read("uv/forks-old/uv.lock")  # writes sys_platform == 'darwin'
    new = read("requirements/compiled/uv-universal.txt")
    assert [
        (str(t.old), str(t.new), t.environment) for t in diff_locks(old, new).transition("torch")
    ] == [
        ("2.6.0+cu124", "2.5.1+cu124", 'sys_platform != "darwin"'),
        ("2.6.0", "2.5.1", 'sys_platform == "darwin"'),
    ]


def test_a_pin_that_becomes_unpinned_is_unpinned_not_removed(tmp_path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir(), new.mkdir()
    (old / "requirements.txt").write_text("torch==2.3.1\ntorchvision==0.18.1\nnumpy==1.26.4\n")
    (new / "requirements.txt").write_text("torch==2.3.1\ntorchvision\n")
    diff = diff_locks(read_lock(old / "requirements.txt"), read_lock(new / "requirements.txt"))
    assert kinds(diff) == {("torchvision", None): ("unpinned",), ("numpy", None): ("removed",)}
    assert [(t.package, t.direction) for t in diff.packages] == [
        ("torchvision", "unpinned"), ("numpy", "removed"),
    ]
    back = diff_locks(read_lock(new / "requirements.txt"), read_lock(old / "requirements.txt"))
    assert kinds(back)[("torchvision", None)] == ("pinned",)
