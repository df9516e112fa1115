"""conda-lock.yml: one pin per package and platform, conda and pip managers."""

import pytest
from lockfixtures import pins, read
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles.conda_lock import parse


def test_one_torch_pin_per_platform_with_its_build() -> None:
    lock = read("conda/conda-lock/conda-lock.yml")
    assert lock.format == "conda-lock.yml"
    torch = {p.platform: p for p in pins(lock, "torch")}
    assert set(torch) == {"linux-64", "osx-arm64"}
    assert torch["linux-64"].build == "cuda118_py311h1fd3d57_300"
    assert torch["osx-arm64"].build == "cpu_generic_py311h9ea6e8b_0"
    assert (
        torch["linux-64"].version == Version("2.1.0") and torch["linux-64"].source == "conda-forge"
    )
    lightning = pins(lock, "lightning")[0]
    assert lightning.source == "pypi" and lightning.groups == ("main",)


def test_package_must_be_a_list(tmp_path) -> None:
    target = tmp_path / "conda-lock.yml"
    target.write_text("version: 1\npackage: {}\n")
    with pytest.raises(LockfileError, match="package: expected a list"):
        parse(target, target.read_text())
