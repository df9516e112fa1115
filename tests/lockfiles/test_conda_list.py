"""`conda list --export` and @EXPLICIT files."""

import pytest
from lockfixtures import pins, read
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles import read_lock
from auditor.lockfiles.conda_list import parse_explicit, parse_export


def test_list_export_pins_platform_build_and_pypi_packages() -> None:
    lock = read("conda/list-export/conda-list.txt")
    assert lock.format == "conda-list-export" and lock.python == "3.9.16"
    torch = pins(lock, "torch")[0]
    assert torch.version == Version("1.13.1") and torch.build == "py3.9_cuda11.7_cudnn8.5.0_0"
    assert torch.platform == "linux-64" and torch.line == 8
    transformers = pins(lock, "transformers")[0]
    assert transformers.source == "pypi" and transformers.build is None


def test_explicit_urls_give_channel_platform_version_and_build() -> None:
    lock = read("conda/explicit/conda-linux-64.lock")
    assert lock.format == "conda-explicit" and lock.python == "3.11.6"
    torch = pins(lock, "torch")[0]
    assert torch.version == Version("2.1.0") and torch.build == "cuda118_py311h1fd3d57_300"
    assert torch.source == "conda-forge" and torch.platform == "linux-64"
    assert pins(lock, "typing-extensions")[0].platform == "linux-64"  # noarch: the file's platform


def test_export_lines_must_be_name_version_build(tmp_path) -> None:
    target = tmp_path / "conda-list.txt"
    target.write_text("# platform: linux-64\npytorch=1.13.1=py3.9_0\nnumpy>=1.2\n")
    with pytest.raises(LockfileError) as caught:
        parse_export(target, target.read_text())
    assert caught.value.line == 3


def test_explicit_needs_the_marker_and_package_urls(tmp_path) -> None:
    target = tmp_path / "explicit.txt"
    target.write_text(
        "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.2-py311_0.conda\n"
    )
    with pytest.raises(LockfileError, match="@EXPLICIT"):
        parse_explicit(target, target.read_text())
    target.write_text("@EXPLICIT\nhttps://example.org/not-a-package\n")
    with pytest.raises(LockfileError) as caught:
        parse_explicit(target, target.read_text())
    assert caught.value.line == 2


def test_an_export_saved_as_requirements_txt_is_still_an_export(tmp_path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text("pytorch=1.13.1=py3.9_cuda11.7_cudnn8.5.0_0\nnumpy=1.23.5=py39h14f4228_0\n")
    lock = read_lock(target)
    assert lock.format == "conda-list-export" and pins(lock, "torch")[0].build.startswith("py3.9_cuda11.7")
