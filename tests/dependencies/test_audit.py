"""The dependencies that call torch, scanned at their locked versions: fairseq 0.12.2's
`torch.load` without weights_only, reached from the project's
`checkpoint_utils.load_model_ensemble_and_task` call, on a bump to torch 2.6."""

from __future__ import annotations

from pathlib import Path

import pytest
from indexserver import index
from packaging.version import Version

from auditor.dependencies.audit import scan_dependencies
from auditor.dependencies.metadata import Index
from auditor.dependencies.reader import Reader
from auditor.knowledge.base import KnowledgeBase
from auditor.models import Pin

LOAD = "torch-load-weights-only-default-true"
INFER = """from fairseq import checkpoint_utils

models, cfg, task = checkpoint_utils.load_model_ensemble_and_task(["hubert_base.pt"], suffix="")
"""


@pytest.fixture(scope="module")
def changes():
    return [c for c in KnowledgeBase.load().entries if c.id == LOAD]


def project(tmp_path: Path) -> list[tuple[str, Path]]:
    (tmp_path / "project").mkdir()
    infer = tmp_path / "project" / "infer.py"
    infer.write_text(INFER, "utf-8")
    (tmp_path / "project" / "other.py").write_text("import torch\n\nx = torch.ones(2)\n", "utf-8")
    return [("infer.py", infer), ("other.py", tmp_path / "project" / "other.py")]


PINS = [Pin("torch", Version("2.6.0"), line=1), Pin("fairseq", Version("0.12.2"), line=2),
        Pin("numpy", Version("1.26.4"), line=3)]


def test_fairseq_load_is_found_in_the_package_and_reached_from_the_project(tmp_path: Path, changes) -> None:
    with index() as served:
        scan = scan_dependencies(PINS, Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes, project(tmp_path))
    assert scan.scanned == ("fairseq 0.12.2",) and scan.unread == ()  # numpy requires no torch: not read
    [found] = scan.findings
    assert (found.package, str(found.version), found.finding.change) == ("fairseq", "0.12.2", LOAD)
    assert (found.finding.path, found.finding.line) == ("fairseq/checkpoint_utils.py", 315)
    [way] = found.via
    assert (way.path, way.line) == ("infer.py", 3)
    assert way.chain == ("fairseq.checkpoint_utils.load_model_ensemble_and_task",
                         "fairseq.checkpoint_utils.load_checkpoint_to_cpu")


def test_a_second_audit_downloads_nothing(tmp_path: Path, changes) -> None:
    with index() as served:
        first = scan_dependencies(PINS, Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes, project(tmp_path))
        wheel = "/files/fairseq-0.12.2-cp38-cp38-manylinux_2_5_x86_64.manylinux1_x86_64.whl"
        asked = sum(served.requests.values())
        second = scan_dependencies(PINS, Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes, [])
        assert served.downloads[wheel] == 1 and sum(served.requests.values()) == asked
    assert [f.finding for f in first.findings] == [f.finding for f in second.findings]
    assert second.findings[0].via == ()  # no project given: listed under the package


def test_a_dependency_not_on_the_index_is_named_unread(tmp_path: Path, changes) -> None:
    with index() as served:
        scan = scan_dependencies([*PINS, Pin("private-lib", Version("1.0"), line=4)],
                                 Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes)
    assert [u.split(":")[0] for u in scan.unread] == ["private-lib 1.0"]


def test_a_yanked_release_pinned_exactly_is_read(tmp_path: Path, changes) -> None:
    metadata = "Metadata-Version: 2.1\nName: oldlib\nVersion: 1.0\nRequires-Dist: torch\n"
    with index(extra={"oldlib": [("1.0", metadata)]}, yanked=frozenset({"oldlib-1.0-py3-none-any.whl"})) as served:
        scan = scan_dependencies([*PINS, Pin("oldlib", Version("1.0"), line=4)],
                                 Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes)
    assert "oldlib 1.0" in scan.scanned and scan.unread == ()


@pytest.mark.network
def test_the_real_fairseq_wheel(tmp_path: Path, changes) -> None:
    scan = scan_dependencies(PINS[:2], Reader(Index(cache=tmp_path), tmp_path / "cache"), changes, project(tmp_path))
    reached = [f for f in scan.findings if f.via]
    assert [(f.finding.path, f.finding.line) for f in reached] == [("fairseq/checkpoint_utils.py", 315)]


def test_the_first_later_release_without_the_call_is_named(tmp_path: Path, changes) -> None:
    """Three later releases of a library: 1.1 still loads without weights_only, 1.2 passes it,
    1.3 too. The finding of 1.0 names 1.2 and the newest release read."""

    def release(version: str, call: str) -> tuple[str, dict[str, str]]:
        return version, {"PKG-INFO": f"Metadata-Version: 2.1\nName: ckptlib\nVersion: {version}\nRequires-Dist: torch\n",
                         "ckptlib/__init__.py": f"import torch\n\n\ndef restore(path):\n    return {call}\n"}

    old_call, new_call = "torch.load(path)", "torch.load(path, weights_only=False)"
    versions = [release("1.0", old_call), release("1.1", old_call), release("1.2", new_call), release("1.3", new_call)]
    with index(sdists={"ckptlib": versions}) as served:
        scan = scan_dependencies([Pin("torch", Version("2.6.0")), Pin("ckptlib", Version("1.0"))],
                                 Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes)
    assert [(str(f.fixed_in), str(f.latest)) for f in scan.findings] == [("1.2", "1.3")]


def test_a_git_dependency_is_read_from_the_environment_given(tmp_path: Path, changes) -> None:
    """A requirement from git has no release on the index: named unread, unless an environment
    that has it installed is given, whose files are then scanned."""
    site = tmp_path / "site-packages"
    (site / "gitlib").mkdir(parents=True)
    (site / "gitlib" / "__init__.py").write_text("import torch\n\n\ndef restore(path):\n    return torch.load(path)\n")
    (site / "gitlib-0.3.dist-info").mkdir()
    (site / "gitlib-0.3.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: gitlib\nVersion: 0.3\n"
                                                            "Requires-Dist: torch>=2\n")
    (site / "gitlib-0.3.dist-info" / "RECORD").write_text("gitlib/__init__.py,,\ngitlib-0.3.dist-info/METADATA,,\n")
    pins = [Pin("torch", Version("2.6.0")), Pin("gitlib", None, source="git+https://example.org/gitlib@abc123")]
    with index() as served:
        without = scan_dependencies(pins, Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes)
        given = scan_dependencies(pins, Reader(Index(served.url, tmp_path), tmp_path / "cache", site), changes)
    assert without.findings == () and "--site-packages" in without.unread[0]
    assert [(f.package, str(f.version), f.finding.path, f.finding.line) for f in given.findings] == [
        ("gitlib", "0.3", "gitlib/__init__.py", 5)]


def test_a_package_named_for_torch_is_read_though_it_requires_none(tmp_path: Path, changes) -> None:
    """torch-geometric 2.8.0's metadata names no torch-family package (it leaves torch to the
    user), yet its code calls torch: it is read."""
    metadata = "Metadata-Version: 2.1\nName: torch-geometric\nVersion: 2.8.0\nRequires-Dist: numpy\n"
    pins = [*PINS, Pin("torch-geometric", Version("2.8.0"), line=4)]
    with index(extra={"torch-geometric": [("2.8.0", metadata)]}) as served:
        scan = scan_dependencies(pins, Reader(Index(served.url, tmp_path), tmp_path / "cache"), changes, project(tmp_path))
    assert "torch-geometric 2.8.0" in scan.scanned

