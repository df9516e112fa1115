"""A pyproject's dependencies: an input that is not a lock."""

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
