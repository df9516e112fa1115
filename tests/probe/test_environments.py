"""Real environments from the local wheels: built once, reused, refused when only CUDA builds exist."""

from __future__ import annotations

import dataclasses
import json
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.probe import Sources, default_cache_dir, verify
from auditor.probe.environments import (
    MARKER_FILE,
    Provisioner,
    Unavailable,
    companions,
    describe,
    disk_usage,
    existing,
)
from auditor.probe.interpreters import discover
from tests.venvs import sees_this_environment

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def provisioner(probe_cache: Path, local_sources: Sources) -> Provisioner:
    return Provisioner(probe_cache / "envs", local_sources)


def test_an_environment_is_built_once_and_then_reused(provisioner: Provisioner) -> None:
    current = discover()[0]
    first = provisioner.provision("numpy", "1.26.0", [], [current])
    assert first.packages["numpy"] == "1.26.0"
    assert first.root is not None and first.root.name == f"numpy-1.26.0-py{current.minor}"
    marker = json.loads((first.root / MARKER_FILE).read_text())
    assert marker["requirements"] == ["numpy==1.26.0"] and marker["installer"] == "uv"
    assert list(first.root.rglob("numpy/__pycache__/*.pyc")), "uv must compile bytecode"
    assert describe(first.python, ["numpy"]).packages == {"numpy": "1.26.0"}
    start = time.monotonic()
    again = provisioner.provision("numpy", "1.26.0", [], [current])
    assert again.reused and again.python == first.python
    assert time.monotonic() - start < 1


def test_an_incomplete_environment_is_rebuilt(provisioner: Provisioner) -> None:
    current = discover()[0]
    built = provisioner.provision("numpy", "2.0.0", [], [current])
    assert built.root is not None
    (built.root / MARKER_FILE).unlink()  # as if the build had been interrupted
    rebuilt = provisioner.provision("numpy", "2.0.0", [], [current])
    assert not rebuilt.reused and rebuilt.packages["numpy"] == "2.0.0"


def test_a_version_with_no_wheel_is_unavailable_with_the_installer_reason(provisioner: Provisioner) -> None:
    with pytest.raises(Unavailable, match=r"cannot install numpy 1\.26\.99: Python 3\.\d+: .*numpy==1\.26\.99"):
        provisioner.provision("numpy", "1.26.99", [], [discover()[0]])
    assert not (provisioner.root / f"numpy-1.26.99-py{discover()[0].minor}").exists()


@pytest.mark.network
def test_a_cuda_only_torch_is_refused_before_anything_is_downloaded(probe_cache: Path) -> None:
    # PyPI's torch 2.14.1 for Linux is a CUDA build pulling nvidia-* wheels; resolving reads metadata only
    provisioner = Provisioner(probe_cache / "envs", Sources(use_pip_config=True, torch_index=None))
    with pytest.raises(Unavailable, match=r"only a CUDA build is available \(it pulls nvidia-"):
        provisioner.provision("torch", "2.14.1", [], [discover()[0]])
    assert not list(provisioner.root.glob("torch-2.14.1-*"))


def test_torch_gets_a_cpu_build_with_numpy_and_its_probes_hold(local_sources: Sources, kb: KnowledgeBase) -> None:
    # the user cache, as a real run would: built once on this machine (about 1 GB), reused after
    provisioner = Provisioner(default_cache_dir() / "envs", local_sources)
    env = provisioner.provision("torch", "2.13.0", [], [discover()[0]])
    assert env.packages["torch"] == "2.13.0+cpu"
    assert env.packages["numpy"] is not None
    assert not [name for name in env.packages if name.startswith("nvidia")]
    assert companions("torch", "1.12.1") == ("numpy<2", "setuptools<67")
    total, unique = disk_usage(env.root)  # type: ignore[arg-type]
    assert 0 < unique <= total  # less when uv could hardlink from its cache
    verification = verify(kb.for_package("torch"), python=env.python, timeout=600)
    assert verification.package_versions["torch"] == "2.13.0+cpu"
    failed = [v for v in verification.results if v.status in ("fail", "error")]
    assert not failed, failed


def test_torch_1_10_to_2_1_gets_setuptools_for_pkg_resources() -> None:
    # torch/torch_version.py imports pkg_resources (1.10: at `import torch`); fresh uv
    # environments have no setuptools. 1.9 has no torch_version.py; 2.2 imports packaging.
    for version in ("1.10.0", "1.10.2", "1.12.1", "2.1.0", "2.1.2"):
        assert "setuptools<67" in companions("torch", version), version
    for version in ("1.9.1", "2.2.0", "2.3.0", "2.13.0"):
        assert not [r for r in companions("torch", version) if r.startswith("setuptools")], version
    assert "setuptools<67" in companions("torch", "2.1.0+cu121")  # a local label is the same release


def test_pip_and_venv_build_the_same_environment_without_uv(probe_cache: Path, local_sources: Sources) -> None:
    provisioner = Provisioner(probe_cache / "pip-envs", local_sources, installer="pip")
    assert provisioner.uv is None
    env = provisioner.provision("numpy", "1.26.0", [], [discover()[0]])
    assert env.packages["numpy"] == "1.26.0"
    assert describe(env.python, ["numpy"]).packages == {"numpy": "1.26.0"}


def test_an_existing_environment_is_described_as_it_is(tmp_path: Path) -> None:
    import sys

    env = existing(sys.executable, ["torch", "no-such-package"])
    assert env.packages["torch"] == "2.13.0+cpu" and env.packages["no-such-package"] is None
    from auditor.errors import ProbeError

    with pytest.raises(ProbeError, match="not a Python environment"):
        existing(str(tmp_path), ["torch"])
    with pytest.raises(ProbeError, match="no such environment or interpreter"):
        existing(str(tmp_path / "missing"), ["torch"])


def test_an_existing_python_3_7_without_importlib_metadata_is_described() -> None:
    # pyenv's 3.7 has neither importlib.metadata nor the backport: its dist-info folders are read
    from auditor.probe.interpreters import discover

    found = [i.path for i in discover() if i.minor == "3.7"]
    if not found:
        pytest.skip("no Python 3.7 on this machine")
    env = describe(str(found[0]), ["pip", "Pip", "no-such-package-here"])
    assert env.python_version.startswith("3.7.")
    assert env.packages["pip"] and env.packages["pip"][0].isdigit()
    assert env.packages["Pip"] == env.packages["pip"] and env.packages["no-such-package-here"] is None


def test_an_existing_environment_with_nvidia_wheels_is_a_cuda_build(tmp_path: Path) -> None:
    # a real virtual environment that holds an nvidia-* distribution beside the running torch
    import sys
    import venv

    from auditor.probe.executor import cuda_build

    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(tmp_path / "env")
    sees_this_environment(tmp_path / "env")
    site = next((tmp_path / "env").glob("lib/python*/site-packages"))
    info = site / "nvidia_cublas_cu12-12.8.4.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nvidia-cublas-cu12\nVersion: 12.8.4.1\n", "utf-8")
    env = existing(str(tmp_path / "env"), ["torch"])
    assert env.packages == {"torch": "2.13.0+cpu", "nvidia-cublas-cu12": "12.8.4.1"}
    assert cuda_build(env) and not cuda_build(existing(sys.executable, ["torch"]))


# A run that takes an environment and probes in it until told to stop, in a process of its own.
USER = """
import json, subprocess, sys
from pathlib import Path
from auditor.probe import Sources
from auditor.probe.environments import Provisioner
from auditor.probe.interpreters import discover
sources = Sources(**{k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(sys.argv[2]).items()})
provisioner = Provisioner(Path(sys.argv[1]), sources)
environment = provisioner.provision("numpy", "1.26.0", json.loads(sys.argv[3]), [discover()[0]])
print(environment.root, flush=True)
sys.stdin.readline()  # probing
done = subprocess.run([environment.python, "-c", "import numpy; print(numpy.__version__)"], capture_output=True, text=True)
print(done.stdout.strip() or done.stderr.strip()[-200:], flush=True)
provisioner.close()
"""


def _run_in_process(root: Path, sources: Sources, requires: list[str]) -> subprocess.Popen[str]:
    fields = {f.name: getattr(sources, f.name) for f in dataclasses.fields(sources)}
    return subprocess.Popen(
        [sys.executable, "-c", USER, str(root), json.dumps(fields), json.dumps(requires)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _marker(root: Path) -> tuple[int, str]:
    return root.stat().st_ino, (root / MARKER_FILE).read_text("utf-8")


def test_a_run_with_other_requirements_leaves_an_environment_in_use_alone(
    tmp_path: Path, local_sources: Sources
) -> None:
    user = _run_in_process(tmp_path / "envs", local_sources, [])
    try:
        root = Path(user.stdout.readline().strip())  # type: ignore[union-attr]
        assert root.name.startswith("numpy-1.26.0-py"), user.stderr.read()  # type: ignore[union-attr]
        before = _marker(root)
        other = _run_in_process(tmp_path / "envs", local_sources, ["packaging"])
        other_root = Path(other.stdout.readline().strip())  # type: ignore[union-attr]
        other.communicate("\n", timeout=300)
        assert other_root != root and (other_root / MARKER_FILE).exists()
        assert _marker(root) == before  # neither removed nor rebuilt under the probing run
        out, err = user.communicate("\n", timeout=300)
        assert out.strip() == "1.26.0", err
    finally:
        user.kill()


def test_an_environment_in_use_is_rebuilt_only_once_its_user_lets_go(
    tmp_path: Path, local_sources: Sources
) -> None:
    user = _run_in_process(tmp_path / "envs", local_sources, [])
    try:
        root = Path(user.stdout.readline().strip())  # type: ignore[union-attr]
        marker = json.loads((root / MARKER_FILE).read_text("utf-8"))
        # another version of auditor finds the marker stale and wants to build the environment again
        stale = {**marker, "requirements": []}
        (root / MARKER_FILE).write_text(json.dumps(stale), "utf-8")
        before = _marker(root)
        rebuilder = _run_in_process(tmp_path / "envs", local_sources, [])
        ready, _, _ = select.select([rebuilder.stdout], [], [], 5)
        assert not ready  # waiting for the lock: it has not handed out an environment
        assert _marker(root) == before  # nor removed or rebuilt the one in use
        out, err = user.communicate("\n", timeout=300)
        assert out.strip() == "1.26.0", err  # probed to the end in an intact environment
        rebuilt = rebuilder.stdout.readline().strip()  # type: ignore[union-attr]
        rebuilder.communicate("\n", timeout=300)
        assert rebuilt == str(root)
        assert json.loads((root / MARKER_FILE).read_text("utf-8"))["requirements"] == ["numpy==1.26.0"]
    finally:
        user.kill()
        rebuilder.kill()


def test_the_marker_is_written_whole(provisioner: Provisioner) -> None:
    built = provisioner.provision("numpy", "1.26.0", [], [discover()[0]])
    assert built.root is not None
    assert not [p for p in built.root.iterdir() if p.name.endswith(".tmp")]
    assert json.loads((built.root / MARKER_FILE).read_text("utf-8"))["packages"]["numpy"] == "1.26.0"


def test_an_environment_directory_that_cannot_be_written_is_a_skip_with_the_reason(
    tmp_path: Path, local_sources: Sources
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory would be")
    provisioner = Provisioner(blocker / "envs", local_sources)
    with pytest.raises(Unavailable, match=rf"environments cannot be built in {blocker / 'envs'} \(Not a directory\)"):
        provisioner.provision("numpy", "1.26.0", [], [discover()[0]])
