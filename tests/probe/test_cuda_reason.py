"""Why torch cannot be provisioned: an unreachable CPU index is named as the cause, apart from an
index that serves only a CUDA build. Real indexes: a find-links folder of wheels, an HTTP server on
127.0.0.1 (and a port on it that refuses connections), resolved by the real uv through the CLI."""

from __future__ import annotations

import json
import socket
import sys
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app

pytestmark = pytest.mark.slow


def wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> Path:
    """A pure wheel with metadata only: enough to resolve, never installed here."""
    dist = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{dist}-py3-none-any.whl"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{dist}.dist-info/METADATA", metadata)
        archive.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{dist}.dist-info/RECORD", "")
    return path


@pytest.fixture
def cuda_wheels(tmp_path: Path) -> Path:
    """torch 2.5.0 and 2.6.0 as PyPI's Linux builds are: each pulls an nvidia-* wheel."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    for version in ("2.5.0", "2.6.0"):
        wheel(folder, "torch", version, ("nvidia-cublas-cu12==12.4.5.8", "numpy"))
    wheel(folder, "nvidia-cublas-cu12", "12.4.5.8")
    wheel(folder, "numpy", "2.0.0")
    return folder


@pytest.fixture
def cuda_index(cuda_wheels: Path) -> Iterator[str]:
    """A PEP 503 index on 127.0.0.1 whose torch is a CUDA build, as a mirror of PyPI would be."""
    page = cuda_wheels / "simple" / "torch"
    page.mkdir(parents=True)
    links = "".join(f'<a href="../../{w.name}">{w.name}</a>\n' for w in sorted(cuda_wheels.glob("torch-*.whl")))
    (page / "index.html").write_text(f"<html><body>\n{links}</body></html>\n", "utf-8")
    handler = partial(SimpleHTTPRequestHandler, directory=str(cuda_wheels))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    server.shutdown()
    server.server_close()


def refused_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple"  # nothing listens there any more


def reasons(cuda_wheels: Path, torch_index: str, tmp_path: Path) -> tuple[set[str], str]:
    """The skipped probes' reasons, and what the run said on stderr while it worked."""
    empty = tmp_path / "empty-index"
    empty.mkdir(exist_ok=True)
    result = CliRunner().invoke(app, [
        "probe", "--from", "2.5.0", "--to", "2.6.0", "--no-pip-config", "--index-url", empty.as_uri(),
        "--find-links", str(cuda_wheels), "--torch-index", torch_index, "--no-cache",
        "--python-old", sys.executable, "--python-new", sys.executable, "--installer", "uv", "--format", "json",
    ])
    assert result.exit_code == 0, result.output
    probes = json.loads(result.stdout)["probes"]
    assert probes and all(p["status"] == "skipped" for p in probes)
    return {p["reason"] for p in probes}, result.stderr


def test_an_unreachable_cpu_index_is_named_as_the_cause(cuda_wheels: Path, tmp_path: Path) -> None:
    url = refused_url()
    (reason,), progress = reasons(cuda_wheels, url, tmp_path)
    assert f"the CPU index {url} is not reachable, and the other indexes offer only a CUDA build" in reason
    assert "(it pulls nvidia-cublas-cu12, several GB)" in reason
    assert "only a CUDA build is available" not in reason
    # said while it works, on stderr (not a terminal here: one line per step)
    assert f"auditor: note: {url} is not reachable; torch comes from the other indexes\n" in progress
    assert f"auditor: resolving torch 2.5.0 (Python {sys.version_info[0]}.{sys.version_info[1]}) ...\n" in progress


def test_a_reachable_index_with_only_cuda_builds_says_so(cuda_wheels: Path, cuda_index: str, tmp_path: Path) -> None:
    (reason,), _ = reasons(cuda_wheels, cuda_index, tmp_path)
    assert "only a CUDA build is available (it pulls nvidia-cublas-cu12, several GB); --allow-cuda accepts it" in reason
    assert "not reachable" not in reason


@pytest.mark.parametrize("command", ["compare", "scan"])
def test_compare_and_scan_probe_take_the_provisioning_options(
    command: str, cuda_wheels: Path, tmp_path: Path, examples: Path
) -> None:
    """The options of `probe` reach the probes of `--probe`: the index named by --torch-index is the
    one reported unreachable, then --allow-cuda lets the CUDA build in (its fake torch has no module)."""
    (tmp_path / "train.py").write_text("import torch\nstate = torch.load('model.pt')\n", "utf-8")
    (tmp_path / "old.txt").write_text("torch==2.5.0\n", "utf-8")
    (tmp_path / "new.txt").write_text("torch==2.6.0\n", "utf-8")
    empty = tmp_path / "empty-index"
    empty.mkdir()
    url = refused_url()
    head = (["compare", str(tmp_path / "old.txt"), str(tmp_path / "new.txt"), "--project", str(tmp_path)]
            if command == "compare" else ["scan", str(tmp_path), "--from", "2.5.0", "--to", "2.6.0"])
    options = ["--probe", "--no-cache", "--format", "json", "--no-pip-config", "--index-url", empty.as_uri(),
               "--find-links", str(cuda_wheels), "--torch-index", url, "--installer", "uv",
               "--python-old", sys.executable, "--python-new", sys.executable]

    refused = CliRunner().invoke(app, [*head, *options])
    assert refused.exit_code == 1, refused.output  # the torch.load findings
    probes = json.loads(refused.stdout)["probes"]
    assert probes and all(p["status"] == "skipped" and f"the CPU index {url} is not reachable" in p["reason"]
                          for p in probes)

    allowed = CliRunner().invoke(app, [*head, *options, "--allow-cuda"])
    probes = json.loads(allowed.stdout)["probes"]
    ran = [p for p in probes if not (p["status"] == "skipped" and "the probe needs 2.6.0" in p["reason"])]
    odd = [(p["change"], p["status"], p["reason"]) for p in ran
           if not (p["status"] == "error" and "No module named 'torch'" in p["reason"])]
    assert ran and not odd, odd  # a probe of what 2.5.0 lacks is skipped, not run
