"""The numpy 1.x -> 2.x pack: every probe shows the old behaviour on a real numpy 1.26.0 and the
new one on the numpy 2.x installed with the test extras."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.probe import verify


def _numpy_entries(kb: KnowledgeBase) -> list[SpecChange]:
    return list(kb.for_package("numpy"))


def _runnable(entries: list[SpecChange]) -> list[SpecChange]:
    return [e for e in entries if e.probe is not None and not e.probe.skip]


def test_the_pack_is_numpy_only_and_probed(kb: KnowledgeBase) -> None:
    entries = _numpy_entries(kb)
    assert len(entries) >= 30
    for entry in entries:
        assert entry.id.startswith("numpy-"), entry.id
        assert entry.probe is not None, entry.id
        assert entry.probe.requires == (), entry.id
        if entry.probe.skip:  # only for what this platform cannot show
            assert entry.platform, entry.id
            continue
        assert "1.26.0" in entry.probe.observed_on, entry.id
        assert any(v.startswith("2.") for v in entry.probe.observed_on), entry.id


@pytest.fixture(scope="module")
def numpy_126(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter with numpy 1.26.0, installed from the local wheels."""
    root = tmp_path_factory.mktemp("numpy-1.26.0")
    # without a pip of its own (ensurepip costs more CPU than the install): this one installs there
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / ("Scripts" if os.name == "nt" else "bin") / "python"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "numpy==1.26.0"],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        if "No matching distribution" in done.stderr:
            pytest.skip(f"no numpy 1.26.0 wheel for this interpreter: {tail}")
        pytest.fail(f"pip could not install numpy 1.26.0: {tail}")
    return str(Path(python))


@pytest.mark.slow
def test_every_probe_shows_the_1x_behaviour_on_numpy_1_26(kb: KnowledgeBase, numpy_126: str) -> None:
    entries = _runnable(_numpy_entries(kb))
    verification = verify(entries, python=numpy_126)
    assert verification.package_versions["numpy"] == "1.26.0"
    results = {v.id: (v.status, v.expected, v.observed) for v in verification.results}
    assert all(status == "pass" for status, _, _ in results.values()), results
    for entry in entries:
        assert entry.probe is not None
        assert results[entry.id][1] == entry.probe.before, entry.id


@pytest.mark.slow
def test_every_probe_passes_on_the_installed_numpy(kb: KnowledgeBase) -> None:
    numpy = pytest.importorskip("numpy")
    entries = _runnable(_numpy_entries(kb))
    verification = verify(entries)
    installed = Version(verification.package_versions["numpy"] or "0")
    assert installed.release[:2] == Version(numpy.__version__).release[:2]
    results = {v.id: (v.status, v.expected, v.observed) for v in verification.results}
    assert all(status == "pass" for status, _, _ in results.values()), results
    if installed >= Version("2.0.0"):
        new = [e for e in entries if e.active(installed)]
        assert len(new) >= 30
        assert all(e.probe is not None and results[e.id][1] == e.probe.after for e in new)
