"""Compatibility findings of a bump: companions, Python wheels, numpy 2, CUDA builds, unpinned."""

import json
from pathlib import Path

import pytest
from lockfixtures import read
from packaging.version import Version
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.lockfiles import Selection, diff_locks
from auditor.lockfiles.compat import COMPANIONS, variant
from auditor.models import Lock, Pin


def lock(*pins: Pin, python: str | None = None, fmt: str = "requirements.txt") -> Lock:
    return Lock("requirements.txt", fmt, pins, python=python)


def pin(name: str, version: str, **fields) -> Pin:
    return Pin(name, Version(version), **fields)


def found(diff) -> set[tuple[str, str | None]]:
    return {(e.kind, e.package) for e in diff.environment}


def test_torchvision_left_behind_by_a_torch_bump() -> None:
    diff = diff_locks(
        read("conda/export/environment.yml"), read("conda/export/environment-new.yml")
    )
    (finding,) = [e for e in diff.environment if e.kind == "companion-mismatch"]
    assert finding.severity == "high" and finding.package == "torchvision"
    assert "torch 2.1 pairs with torchvision 0.16" in finding.message


def test_matching_companions_raise_nothing() -> None:
    diff = diff_locks(read("pip-freeze/cu117.txt"), read("requirements/compiled/requirements.txt"))
    assert found(diff) == {("cuda-build-changed", "torch")}


def test_torchtext_has_no_release_for_torch_2_4() -> None:
    old = lock(pin("torch", "2.3.1"), pin("torchtext", "0.18.0"))
    new = lock(pin("torch", "2.4.0"), pin("torchtext", "0.18.0"))
    (finding,) = diff_locks(old, new).environment
    assert (finding.kind, finding.package) == ("companion-mismatch", "torchtext")
    assert "no release for torch 2.4.0" in finding.message


def test_torchaudio_of_the_torch_2_line_matches_by_minor() -> None:
    new = lock(pin("torch", "2.5.1"), pin("torchaudio", "2.5.1"), pin("torchvision", "0.20.1"))
    assert diff_locks(lock(pin("torch", "2.4.0")), new).environment == ()
    assert COMPANIONS["1.13"]["torchaudio"] == "0.13"


def test_numpy_2_with_a_torch_built_against_numpy_1() -> None:
    old = lock(pin("torch", "2.2.2"), pin("numpy", "1.26.4"))
    assert found(diff_locks(old, lock(pin("torch", "2.2.2"), pin("numpy", "2.0.0")))) == {
        ("numpy2-with-old-torch", "numpy")
    }
    assert diff_locks(old, lock(pin("torch", "2.3.0"), pin("numpy", "2.0.0"))).environment == ()


def test_python_without_wheels_from_the_knowledge_base(kb: KnowledgeBase) -> None:
    old, new = lock(pin("torch", "2.8.0")), lock(pin("torch", "2.9.0"))
    diff = diff_locks(old, new, Selection(python="3.9"), kb.entries)
    (finding,) = diff.environment
    assert finding.kind == "python-unsupported" and "torch-python-3-9-dropped" in finding.message
    assert diff_locks(old, new, Selection(python="3.11"), kb.entries).environment == ()


def test_a_downgrade_below_the_first_wheels_for_a_python(kb: KnowledgeBase) -> None:
    diff = diff_locks(
        lock(pin("torch", "1.13.1")),
        lock(pin("torch", "1.12.1")),
        Selection(python="3.11"),
        kb.entries,
    )
    assert "torch-python-3-11-wheels-added" in {
        e.message.rsplit("(", 1)[-1].rstrip(")") for e in diff.environment
    }


def test_the_python_a_lock_is_made_for_is_checked_without_an_option(kb: KnowledgeBase) -> None:
    old = lock(pin("torch", "2.8.0"), python=">=3.9")
    new = lock(pin("torch", "2.9.0"), python=">=3.9")
    (finding,) = diff_locks(old, new, knowledge=kb.entries).environment
    assert "Python 3.9 (the Python requirements.txt is locked for)" in finding.message


def test_cuda_build_change_and_cpu_to_cuda() -> None:
    diff = diff_locks(read("uv/forks-old/uv.lock"), read("uv/forks-new/uv.lock"))
    (finding,) = diff.environment
    assert (
        finding.kind == "cuda-build-changed"
        and "CUDA 12.4" in finding.message
        and "CUDA 12.8" in finding.message
    )
    cpu = diff_locks(lock(pin("torch", "2.1.0+cpu")), lock(pin("torch", "2.1.0+cu121")))
    assert "from a CPU-only build to a CUDA 12.1 build" in cpu.environment[0].message


def test_conda_builds_and_selector_packages_tell_the_variant() -> None:
    diff = diff_locks(
        read("conda/export/environment.yml"), read("conda/export/environment-new.yml")
    )
    assert ("cuda-major-changed", "torch") in found(diff)  # CUDA 11.8 -> 12.1
    assert variant(pin("torch", "2.1.0"), [pin("pytorch-cuda", "11.8")]) == "cu118"
    assert variant(pin("torch", "2.1.0"), [Pin("cpuonly", Version("2.0"))]) == "cpu"
    assert variant(pin("torch", "2.1.0", build="cuda120_py311h25b6552_301")) == "cu120"
    assert variant(pin("torch", "2.1.0", build="cpu_generic_py311h9ea6e8b_0")) == "cpu"


def test_companion_built_for_another_cuda() -> None:
    new = lock(pin("torch", "2.1.0+cu121"), pin("torchvision", "0.16.0+cu118"))
    diff = diff_locks(lock(pin("torch", "2.0.1+cu121")), new)
    assert ("cuda-build-mismatch", "torchvision") in found(diff)


def test_an_input_that_does_not_pin_torch_is_flagged() -> None:
    diff = diff_locks(
        read("requirements/requirements.in"), read("requirements/compiled/requirements.txt")
    )
    messages = [e.message for e in diff.environment if e.kind == "not-locked"]
    assert len(messages) == 2 and "does not pin torch (it asks for <2,>=1.12)" in messages[0]


def test_a_companion_on_one_conda_platform_is_not_held_against_another() -> None:
    old = lock(
        pin("torch", "2.0.1", platform="linux-64"), pin("torch", "2.0.1", platform="osx-arm64")
    )
    new = lock(
        pin("torch", "2.1.0", platform="linux-64"),
        pin("torch", "2.1.0", platform="osx-arm64"),
        pin("torchvision", "0.15.2", platform="linux-64"),
    )
    messages = [e.message for e in diff_locks(old, new).environment]
    assert len(messages) == 1 and "[linux x86_64]" in messages[0]


# (python, torch before, torch after) -> the wheel entries that say the new torch cannot install.
# Both directions: a Python loses wheels from a release on (python-support) or has them only from
# a release on (added). 2.5.0's metadata still admits 3.8 (>=3.8.0) although it has no cp38 wheel.
WHEELS = [
    ("3.6", "1.10.2", "1.11.0", {"torch-python-3-6-dropped"}),
    ("3.6", "1.11.0", "1.10.2", set()),
    ("3.6", "2.0.1", "2.1.2", {"torch-python-3-6-dropped", "torch-python-3-7-dropped"}),
    ("3.7", "1.13.1", "2.0.0", {"torch-python-3-7-dropped"}),
    ("3.7", "2.0.0", "1.13.1", set()),
    ("3.8", "2.0.1", "2.1.2", set()),
    ("3.8", "2.4.1", "2.5.0", {"torch-python-3-8-dropped"}),
    ("3.8", "2.5.0", "2.4.1", set()),
    ("3.9", "2.4.1", "2.5.0", set()),
    ("3.9", "2.8.0", "2.9.0", {"torch-python-3-9-dropped"}),
    ("3.9", "2.9.0", "2.8.0", set()),
    ("3.13", "2.4.1", "2.5.0", set()),
    ("3.13", "2.5.0", "2.4.1", {"torch-python-3-13-wheels-added"}),
    ("3.13", "2.6.0", "2.8.0", set()),
]


@pytest.mark.parametrize(("python", "before", "after", "expected"), WHEELS)
def test_python_wheels_findings_follow_the_entry_kind(
    tmp_path: Path, python: str, before: str, after: str, expected: set[str]
) -> None:
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text(f"torch=={before}\n")
    new.write_text(f"torch=={after}\n")
    result = CliRunner().invoke(
        app, ["compare", str(old), str(new), "--python-version", python, "--format", "json"]
    )
    document = json.loads(result.stdout)
    wheels = [e for e in document["environment"] if e["kind"] == "python-unsupported"]
    assert {e["message"].rsplit("(", 1)[1].rstrip(")") for e in wheels} == expected
    assert all(e["severity"] in ("medium", "high") for e in wheels)
    assert result.exit_code == (1 if document["environment"] else 0), result.output


def test_the_companion_table_reaches_the_torch_horizon() -> None:
    """A torch minor missing from the table checks no companion at all, in silence: every minor
    from 1.8 up to the knowledge base's torch horizon has its row."""
    from auditor.knowledge.loader import default_directory
    import tomllib

    horizon = Version(tomllib.loads((default_directory() / "horizon.toml").read_text("utf-8"))["torch"]["release"])
    minors = [f"1.{m}" for m in range(8, 14)] + [f"2.{m}" for m in range(0, horizon.minor + 1)]
    assert [m for m in minors if m not in COMPANIONS] == []


def test_torchvision_left_behind_on_a_torch_past_2_9() -> None:
    """torch 2.8.0 -> 2.12.1 with torchvision 0.12.0+cu113 kept (a real Dependabot bump)."""
    old = lock(pin("torch", "2.8.0"), pin("torchvision", "0.12.0+cu113"))
    new = lock(pin("torch", "2.12.1"), pin("torchvision", "0.12.0+cu113"))
    assert ("companion-mismatch", "torchvision") in found(diff_locks(old, new))
    fine = lock(pin("torch", "2.15.0"), pin("torchvision", "0.29.2"), pin("torchaudio", "2.11.1"))
    assert diff_locks(lock(pin("torch", "2.14.0")), fine).environment == ()
