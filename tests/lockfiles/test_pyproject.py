"""A pyproject's dependencies: an input that is not a lock."""

import json
from pathlib import Path

import pytest
from lockfixtures import LOCKS
from typer.testing import CliRunner

from auditor.cli import app
from auditor.lockfiles import FORMATS, read_lock
from auditor.lockfiles.pyproject import parse


def test_dependencies_extras_and_groups_are_unpinned_inputs(tmp_path) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_text(
        '[project]\nname = "app"\nrequires-python = ">=3.10"\n'
        'dependencies = ["torch>=2.1,<2.3", "numpy==1.26.4"]\n\n'
        '[project.optional-dependencies]\nvision = ["torchvision"]\n\n'
        '[dependency-groups]\ndev = ["pytest>=8"]\n'
    )
    lock = parse(target, target.read_text())
    assert lock.python == ">=3.10"
    assert {p.name: (p.specifier, p.groups) for p in lock.unpinned()} == {
        "torch": ("<2.3,>=2.1", ("main",)),
        "torchvision": (None, ("vision",)),
        "pytest": (">=8", ("dev",)),
    }
    assert [p.line for p in lock.pins if p.name == "numpy"] == [4]


def test_a_pyproject_is_read_by_name_but_not_taken_for_a_lockfile(tmp_path) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_text('[project]\nname = "app"\ndependencies = ["torch>=2.1"]\n')
    assert read_lock(target).format == "pyproject.toml"
    assert max(fmt.claims(target, "") for fmt in FORMATS) < 2


def by_group(lock) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """(group, name) -> (version, specifier)."""
    return {
        (p.groups[0], p.name): (str(p.version) if p.version else None, p.specifier) for p in lock.pins
    }


def test_poetry_dependencies_and_groups_are_read() -> None:
    lock = read_lock(LOCKS / "pyproject/poetry/pyproject.toml")
    assert lock.python == ">=3.10,<3.13"
    assert by_group(lock) == {
        ("main", "torch"): ("2.5.1", None),  # poetry's bare version is an exact pin
        ("main", "torchvision"): ("0.20.1", None),
        ("main", "numpy"): (None, ">=1.26,<2.0"),  # ^1.26
        ("main", "tokenizer"): (None, None),
        ("dev", "pytest"): (None, ">=8.3,<9.0"),
        ("dev", "ruff"): ("0.8.1", None),
    }
    assert next(p for p in lock.pins if p.name == "torch").line == 10
    assert next(p for p in lock.pins if p.name == "tokenizer").local


def test_pdm_dev_groups_are_read() -> None:
    lock = read_lock(LOCKS / "pyproject/pdm/pyproject.toml")
    assert by_group(lock) == {
        ("main", "torch"): ("2.5.1", None),
        ("main", "torchvision"): (None, ">=0.20"),
        ("test", "pytest"): ("8.3.3", None),
        ("test", "testkit"): (None, None),
        ("bench", "torch"): ("2.5.1", None),
    }
    assert [p.line for p in lock.pins if p.name == "torch"] == [6, 15]


def test_uv_dependency_groups_and_dev_dependencies_are_read() -> None:
    lock = read_lock(LOCKS / "pyproject/uv/pyproject.toml")
    assert by_group(lock) == {
        ("main", "fastapi"): (None, ">=0.115"),
        ("gpu", "torch"): ("2.5.1", None),
        ("gpu", "triton"): ("3.1.0", None),
        ("dev", "pytest"): (None, ">=8"),
        ("dev", "torchvision"): ("0.20.1", None),
    }


@pytest.mark.parametrize(
    ("constraint", "version", "specifier"),
    [
        ('"==2.5.1"', "2.5.1", None),
        ('"^2.5"', None, ">=2.5,<3.0"),
        ('"^0.4.2"', None, ">=0.4.2,<0.5.0"),
        ('"~2.5.1"', None, ">=2.5.1,<2.6.0"),
        ('">=2.1,<2.6"', None, ">=2.1,<2.6"),
        ('"2.5.*"', None, "==2.5.*"),
        ('"*"', None, None),
        ('{ version = "2.5.1", markers = "sys_platform == \'linux\'" }', "2.5.1", None),
    ],
)
def test_poetry_constraints_are_pins_or_ranges(tmp_path, constraint, version, specifier) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_text(f"[tool.poetry.dependencies]\ntorch = {constraint}\n")
    (pin,) = read_lock(target).pins
    assert (str(pin.version) if pin.version else None, pin.specifier) == (version, specifier)


def test_a_poetry_pin_moving_is_a_torch_transition(tmp_path) -> None:
    old, new = tmp_path / "old" / "pyproject.toml", tmp_path / "new" / "pyproject.toml"
    for path, version in ((old, "2.5.1"), (new, "2.6.0")):
        path.parent.mkdir()
        path.write_text(f'[tool.poetry.dependencies]\npython = "^3.10"\ntorch = "{version}"\n')
    result = CliRunner().invoke(app, ["compare", str(old), str(new), "-f", "json"])
    assert result.exit_code in (0, 1), result.output
    transitions = json.loads(result.stdout)["transitions"]
    assert [(t["from"], t["to"], t["direction"]) for t in transitions] == [("2.5.1", "2.6.0", "upgrade")]


def test_a_requirement_is_found_on_its_own_line(tmp_path) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_text('[project]\nname = "x"\ndependencies = [\n  "torchvision",\n  "torch",\n]\n')
    assert {p.name: p.line for p in read_lock(target).pins} == {"torchvision": 4, "torch": 5}


CONDA_LOCK_INPUT = """[tool.poetry]
name = "models"
version = "0.1.0"

[tool.poetry.dependencies]
python = "~3.10"
pytorch = "{torch}"
pytorch-cuda = "11.8"
flash-attn = {{version = "2.3.6", source = "pypi"}}

[tool.conda-lock]
channels = ["conda-forge", "pytorch", "nvidia", "nodefaults"]
platforms = ["linux-64"]
"""


def test_poetry_tables_read_by_conda_lock_name_conda_packages(tmp_path) -> None:
    old, new = tmp_path / "old" / "pyproject.toml", tmp_path / "new" / "pyproject.toml"
    for target, torch in ((old, "2.1.0"), (new, "2.0.1")):
        target.parent.mkdir()
        target.write_text(CONDA_LOCK_INPUT.format(torch=torch))
    lock = read_lock(new)
    assert {p.name: (str(p.version), p.line) for p in lock.pins if p.name.startswith(("torch", "pytorch"))} == {
        "torch": ("2.0.1", 7), "pytorch-cuda": ("11.8", 8),
    }
    result = CliRunner().invoke(app, ["lock", "diff", str(old), str(new), "--format", "json"])
    moves = [(t["package"], t["from"], t["to"]) for t in json.loads(result.stdout)["packages"]]
    assert moves == [("torch", "2.1.0", "2.0.1")]


def test_pins_of_an_optional_dependency_name_the_extra(tmp_path) -> None:
    project = (
        '[project]\nname = "roi"\nversion = "1.0"\ndependencies = ["numpy==2.2.6"]\n\n'
        '[project.optional-dependencies]\n'
        'core = [\n    "torch=={}",\n    "torchvision=={}",\n]\n'
        'all = [\n    "torch",\n    "torchvision",\n]\n'
    )
    for folder, versions in (("old", ("2.12.1", "0.27.1")), ("new", ("2.13.0", "0.28.0"))):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "pyproject.toml").write_text(project.format(*versions))
    lock = read_lock(tmp_path / "new" / "pyproject.toml")
    assert {(p.name, p.marker) for p in lock.pins} >= {("numpy", None), ("torch", 'extra == "core"')}
    result = CliRunner().invoke(
        app, ["lock", "diff", str(tmp_path / "old" / "pyproject.toml"), str(tmp_path / "new" / "pyproject.toml"), "--format", "json"]
    )
    moves = [(t["package"], t["from"], t["to"], t["variant"]) for t in json.loads(result.stdout)["packages"]]
    assert moves == [("torch", "2.12.1", "2.13.0", "extra core"), ("torchvision", "0.27.1", "0.28.0", "extra core")]


def test_an_extra_is_resolved_with_the_rest_as_asked_for() -> None:
    from auditor.lockfiles.resolve import _requirement

    target = Path("pyproject.toml")
    lock = parse(target, '[project]\nname = "p"\nversion = "1"\n[project.optional-dependencies]\n'
                         'core = ["torch>=2.4; python_version < \'3.13\'", "numpy"]\n')
    assert sorted(_requirement(p) for p in lock.pins) == ["numpy", 'torch>=2.4; python_version < "3.13"']
