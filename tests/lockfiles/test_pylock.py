"""PEP 751 pylock.toml through packaging.pylock."""

import pytest
from lockfixtures import LOCKS, pins, read
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles.detect import detect
from auditor.lockfiles.pylock import parse


def test_packages_markers_indexes_and_vcs() -> None:
    lock = read("pylock/pylock.toml")
    assert lock.format == "pylock.toml" and lock.python == ">=3.10"
    torch = pins(lock, "torch")[0]
    assert torch.version == Version("2.3.1+cu121")  # from a %2B wheel URL
    assert torch.source == "https://download.pytorch.org/whl/cu121"
    assert pins(lock, "numpy")[0].source is None
    assert pins(lock, "triton")[0].marker == 'platform_machine == "x86_64"'
    visionkit = pins(lock, "visionkit")[0]
    assert visionkit.version is None and visionkit.source.endswith(
        "@5d1e6f0c3b2a41e8a9f7c6d5b4a3928170f6e5d4"
    )
    assert torch.line == 12


def test_named_pylock_files_are_detected() -> None:
    path = LOCKS / "pylock/pylock.gpu.toml"
    assert detect(path, path.read_text()).name == "pylock.toml"


def test_validation_errors_name_the_package_line(tmp_path) -> None:
    target = tmp_path / "pylock.toml"
    target.write_text(
        'lock-version = "1.0"\ncreated-by = "x"\n\n[[packages]]\nname = "torch"\nversion = 2\n'
    )
    with pytest.raises(LockfileError) as caught:
        parse(target, target.read_text())
    assert caught.value.line == 4 and "packages[0]" in caught.value.message


def test_an_unsupported_lock_version_is_refused(tmp_path) -> None:
    target = tmp_path / "pylock.toml"
    target.write_text('lock-version = "2.0"\ncreated-by = "x"\npackages = []\n')
    with pytest.raises(LockfileError, match="2.0"):
        parse(target, target.read_text())
