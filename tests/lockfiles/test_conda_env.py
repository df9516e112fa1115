"""conda environment.yml (match specs, the pip: list, selectors) and `conda env export`."""

import pytest
from lockfixtures import LOCKS, pins, read
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles import read_lock
from auditor.lockfiles.conda import match_spec_pin
from auditor.lockfiles.conda_env import parse_environment


def test_environment_file_maps_pytorch_to_torch_and_reads_the_pip_list() -> None:
    lock = read("conda/environment/environment.yml")
    assert lock.format == "environment.yml"
    torch = pins(lock, "torch")[0]
    assert torch.version == Version("2.0.1") and torch.source == "pytorch" and torch.line == 8
    assert pins(lock, "pytorch-cuda")[0].platform == "linux"  # the `# [linux]` selector
    assert pins(lock, "pytorch-mutex")[0].build == "cuda"  # a selector package, not torch
    assert pins(lock, "numpy")[0].specifier == ">=1.24,<2"
    assert pins(lock, "python")[0].version is None  # `=3.10` is 3.10.*
    timm = pins(lock, "timm")[0]
    assert timm.version == Version("0.9.2") and timm.groups == ("pip",)
    assert "--extra-index-url" not in {p.name for p in lock.pins}


def test_env_export_pins_version_and_build() -> None:
    lock = read("conda/export/environment.yml")
    assert lock.format == "conda-env-export" and lock.python == "3.10.12"
    torch = pins(lock, "torch")[0]
    assert torch.version == Version("2.0.1") and torch.build == "py3.10_cuda11.8_cudnn8.7.0_0"
    assert pins(lock, "_libgcc-mutex")[0].version == Version("0.1")  # leading _ kept
    assert pins(lock, "torchvision")[0].build == "py310_cu118"


@pytest.mark.parametrize(
    ("spec", "version", "build", "specifier", "source"),
    [
        ("pytorch", None, None, None, None),
        ("pytorch=2.0.1", "2.0.1", None, None, None),
        ("pytorch==2.0.1", "2.0.1", None, None, None),
        ("pytorch=2.0", None, None, "=2.0", None),
        ("pytorch=2.0.*", None, None, "=2.0.*", None),
        (
            "pytorch::pytorch=2.1.0=py3.11_cuda12.1_cudnn8.9.2_0",
            "2.1.0",
            "py3.11_cuda12.1_cudnn8.9.2_0",
            None,
            "pytorch",
        ),
        (
            "pytorch 2.1.0 cuda118_py311h1fd3d57_300",
            "2.1.0",
            "cuda118_py311h1fd3d57_300",
            None,
            None,
        ),
        ("pytorch>=1.12,<2", None, None, ">=1.12,<2", None),
        ("openssl=1.1.1w=h7f8727e_0", None, "h7f8727e_0", "===1.1.1w", None),
    ],
)
def test_match_specs(spec, version, build, specifier, source) -> None:
    pin = match_spec_pin(spec, LOCKS / "x.yml", 1)
    assert pin.name in ("torch", "openssl")
    assert (str(pin.version) if pin.version else None, pin.build, pin.specifier, pin.source) == (
        version,
        build,
        specifier,
        source,
    )


def test_bad_yaml_names_the_line(tmp_path) -> None:
    target = tmp_path / "environment.yml"
    target.write_text("name: x\ndependencies:\n  - pytorch=2.0.1\n  - [unclosed\n")
    with pytest.raises(LockfileError) as caught:
        parse_environment(target, target.read_text())
    assert caught.value.message.startswith("invalid YAML") and caught.value.line == 5


def test_dependencies_must_be_a_list(tmp_path) -> None:
    target = tmp_path / "environment.yml"
    target.write_text("name: x\ndependencies:\n  pytorch: 2.0.1\n")
    with pytest.raises(LockfileError) as caught:
        parse_environment(target, target.read_text())
    assert (caught.value.line, caught.value.message) == (3, "dependencies: expected a list")


@pytest.mark.parametrize("metapackage", ["pytorch-gpu", "pytorch-cpu"])
def test_conda_forge_metapackages_are_torch(tmp_path, metapackage) -> None:
    target = tmp_path / "environment.yml"
    target.write_text(f"channels:\n  - conda-forge\ndependencies:\n  - python=3.12\n  - {metapackage}=2.5.1\n")
    assert [(p.name, str(p.version)) for p in read_lock(target).pins if p.name != "python"] == [("torch", "2.5.1")]


def test_an_export_listing_pytorch_beside_its_metapackage_has_one_torch(tmp_path) -> None:
    target = tmp_path / "conda-list.txt"
    target.write_text(
        "# platform: linux-64\npytorch=2.5.1=cuda126_py312h1763f6d_306\n"
        "pytorch-gpu=2.5.1=cuda126ha999a5f_306\npython=3.12.7=hc5c86c4_0_cpython\n"
    )
    lock = read_lock(target)
    assert [(p.name, p.build) for p in lock.pins if p.name.startswith(("torch", "pytorch"))] == [
        ("torch", "cuda126_py312h1763f6d_306"),
        ("pytorch-gpu", "cuda126ha999a5f_306"),
    ]
