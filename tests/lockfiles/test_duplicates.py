"""A package pinned twice in one file: an error naming both lines, unless the pins are for
different environments (markers), or a conda environment's pip section replaces conda's pin."""

from pathlib import Path

import pytest
from lockfixtures import LOCKS, pins
from packaging.version import Version
from typer.testing import CliRunner

from auditor.cli import app
from auditor.errors import LockfileError
from auditor.lockfiles import read_lock

runner = CliRunner()


def test_two_torch_pins_in_a_requirements_file_are_an_error(tmp_path: Path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text("numpy==2.1.3\ntorch==2.5.1\nfilelock==3.16.1\ntorch==2.6.0\n")
    result = runner.invoke(app, ["lock", "show", str(target)])
    assert result.exit_code == 2
    assert f"{target}:4: torch is pinned twice for one environment: 2.5.1 at line 2 and 2.6.0 here" in result.output
    assert "Traceback" not in result.output


def test_compare_stops_on_a_twice_pinned_torch(tmp_path: Path) -> None:
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("torch==2.5.1\n")
    new.write_text("torch==2.5.1\ntorch==2.6.0\n")
    result = runner.invoke(app, ["compare", str(old), str(new)])
    assert result.exit_code == 2
    assert "new.txt:2: torch is pinned twice" in result.output


def test_a_pin_from_an_include_names_the_included_file(tmp_path: Path) -> None:
    (tmp_path / "base.txt").write_text("numpy==2.1.3\ntorch==2.5.1\n")
    target = tmp_path / "requirements.txt"
    target.write_text("-r base.txt\ntorch==2.6.0\n")
    with pytest.raises(LockfileError) as raised:
        read_lock(target)
    assert str(raised.value) == f"{target}:2: torch is pinned twice for one environment: 2.5.1 at base.txt:2 and 2.6.0 here"


def test_pins_under_different_markers_are_per_environment(tmp_path: Path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text(
        'torch==2.5.1+cpu ; sys_platform == "linux"\ntorch==2.5.1 ; sys_platform == "darwin"\n'
    )
    assert [(str(p.version), p.marker) for p in read_lock(target).pins] == [
        ("2.5.1+cpu", 'sys_platform == "linux"'),
        ("2.5.1", 'sys_platform == "darwin"'),
    ]


def test_the_same_pin_twice_and_a_range_beside_a_pin_read_once(tmp_path: Path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text("torch>=2.1\ntorch==2.5.1\nnumpy>=1.26\nnumpy<2\ntorch==2.5.1\n")
    lock = read_lock(target)
    assert [(p.name, str(p.version) if p.version else p.specifier) for p in lock.pins] == [
        ("torch", "2.5.1"),
        ("numpy", "<2,>=1.26"),
    ]


def test_freeze_output_with_two_pins_is_an_error(tmp_path: Path) -> None:
    target = tmp_path / "freeze.txt"
    target.write_text("torch==2.5.1\ntorch==2.6.0\n")
    with pytest.raises(LockfileError, match=r"freeze.txt:2: torch is pinned twice"):
        read_lock(target)


def test_conda_pip_section_replaces_the_conda_pytorch_pin() -> None:
    lock = read_lock(LOCKS / "conda/pip-override/environment.yml")
    torch = pins(lock, "torch")
    assert [(p.version, p.line, p.groups) for p in torch] == [(Version("2.6.0"), 15, ("pip",))]
    note = "torch 2.6.0 of the pip section (line 15) replaces the conda pin 2.5.1 (line 8): pip installs after conda"
    assert lock.notes == (note,)


def test_conda_pip_override_is_a_transition_with_the_note(tmp_path: Path) -> None:
    old = tmp_path / "old" / "environment.yml"
    old.parent.mkdir()
    old.write_text("name: seg\ndependencies:\n  - python=3.11\n  - pytorch=2.5.1\n  - pip\n")
    new = LOCKS / "conda/pip-override/environment.yml"
    result = runner.invoke(app, ["lock", "diff", str(old), str(new)])
    assert "torch: 2.5.1 -> 2.6.0 (upgraded" in result.stdout
    assert "(added)" not in result.stdout.split("\n")[0]
    assert "note: torch 2.6.0 of the pip section (line 15) replaces the conda pin 2.5.1" in result.stdout


def test_a_pip_section_pin_of_the_same_version_keeps_the_conda_pin(tmp_path: Path) -> None:
    target = tmp_path / "environment.yml"
    target.write_text(
        "dependencies:\n  - pytorch=2.5.1=py3.11_cuda12.4_cudnn9.1.0_0\n  - pip:\n    - torch==2.5.1\n"
    )
    lock = read_lock(target)
    assert [(p.version, p.build) for p in lock.pins] == [(Version("2.5.1"), "py3.11_cuda12.4_cudnn9.1.0_0")]
    assert lock.notes == ()


def test_two_conda_pins_of_one_package_are_an_error(tmp_path: Path) -> None:
    target = tmp_path / "environment.yml"
    target.write_text("dependencies:\n  - pytorch=2.5.1\n  - numpy=2.1.3\n  - pytorch=2.6.0\n")
    with pytest.raises(LockfileError, match=r"environment.yml:4: torch is pinned twice .* 2.5.1 at line 2"):
        read_lock(target)


def test_conda_selectors_make_pins_per_platform(tmp_path: Path) -> None:
    target = tmp_path / "environment.yml"
    target.write_text("dependencies:\n  - pytorch=2.5.1  # [linux]\n  - pytorch=2.4.1  # [osx]\n")
    assert [(str(p.version), p.platform) for p in read_lock(target).pins] == [("2.5.1", "linux"), ("2.4.1", "osx")]


def test_two_pins_in_one_pyproject_group_are_an_error(tmp_path: Path) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_text('[project]\nname = "x"\ndependencies = [\n  "torch==2.5.1",\n  "torch==2.6.0",\n]\n')
    with pytest.raises(LockfileError, match=r"pyproject.toml:5: torch is pinned twice .* 2.5.1 at line 4"):
        read_lock(target)
