"""`scan --harvest`: a release past the shipped harvest read on the fly from a fake torch wheel
served by a simple index on 127.0.0.1, its candidates reported as generated changes."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.harvest.fly import shipped_end
from auditor.knowledge.loader import default_directory
from tests.harvest.wheels import write_wheel

END = shipped_end(default_directory(), "torch")
assert END is not None
NEXT = f"{END.major}.{END.minor + 1}.0"  # a release after the shipped harvest

AT_END = {"torch/__init__.py": "def old_api(x):\n    return x\n\ndef keep(x):\n    return x\n"}
AFTER = {"torch/__init__.py": '''
import warnings

def keep(x):
    return x

def legacy(x):
    warnings.warn("torch.legacy is deprecated, use torch.keep", FutureWarning)
    return x
'''}
PROJECT = "import torch\n\ntorch.old_api(1)\ntorch.legacy(2)\ntorch.keep(3)\n"


class _Quiet(SimpleHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.hits.append(self.path)
        super().do_GET()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """A simple index (PEP 503 HTML pages) with a fake torch wheel at the shipped harvest's end
    and one at the next release; returns its URL and the paths requested."""
    root = tmp_path / "served"
    files = root / "files"
    files.mkdir(parents=True)
    wheels = [write_wheel(files, "torch", str(END), AT_END, "macosx_11_0_arm64"),
              write_wheel(files, "torch", NEXT, AFTER, "macosx_11_0_arm64")]
    page = root / "simple" / "torch"
    page.mkdir(parents=True)
    (page / "index.html").write_text("".join(f'<a href="/files/{w.name}">{w.name}</a>\n' for w in wheels), "utf-8")
    hits: list[str] = []
    handler = type("Handler", (_Quiet,), {"hits": hits})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/", hits
    finally:
        server.shutdown()
        server.server_close()


def scan(tmp_path: Path, *options: str) -> dict[str, object]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "train.py").write_text(PROJECT, "utf-8")
    result = CliRunner().invoke(app, [
        "scan", str(project), "--from", "2.13.0", "--to", NEXT, "--cache-dir", str(tmp_path / "cache"),
        "-f", "json", *options])
    assert result.exit_code == 1, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_harvest_reports_the_new_release_s_candidates_as_generated_changes(
        tmp_path: Path, index: tuple[str, list[str]]) -> None:
    url, hits = index
    data = scan(tmp_path, "--harvest", "--index-url", url)
    changes = {c["id"]: c for c in data["changes"]}  # type: ignore[attr-defined]
    removed = changes[f"torch@{NEXT}:symbol-removed:torch.old_api"]
    assert removed["source"] == "harvested"
    assert removed["evidence"]["release"] == str(END)
    assert f"torch@{NEXT}:deprecation-begins:torch.legacy" in changes
    lines = {(f["change"], f["line"], f["confidence"]) for f in data["findings"]}  # type: ignore[attr-defined]
    assert (f"torch@{NEXT}:symbol-removed:torch.old_api", 3, "low") in lines
    assert (f"torch@{NEXT}:deprecation-begins:torch.legacy", 4, "low") in lines
    assert not any(line == 5 for _, line, _ in lines)  # torch.keep did not change
    note = next(n for n in data["notes"] if n.startswith("--harvest:"))  # type: ignore[attr-defined]
    assert f"torch {END} -> {NEXT} harvested on the fly" in note and "2 reported as generated changes" in note
    # a harvest is not a review: the move still reaches past the knowledge base
    assert any(e["kind"] == "beyond-knowledge" for e in data["environment"])  # type: ignore[attr-defined]
    downloads = [h for h in hits if h.startswith("/files/")]
    assert len(downloads) == 2
    scan(tmp_path, "--harvest", "--index-url", url)  # the second run reads the kept harvests
    assert [h for h in hits if h.startswith("/files/")] == downloads


def test_without_harvest_only_the_beyond_knowledge_finding_says_it(tmp_path: Path) -> None:
    data = scan(tmp_path)
    assert not [c for c in data["changes"] if c["id"].startswith(f"torch@{NEXT}")]  # type: ignore[attr-defined]
    assert any(e["kind"] == "beyond-knowledge" for e in data["environment"])  # type: ignore[attr-defined]
    assert not [n for n in data["notes"] if n.startswith("--harvest:")]  # type: ignore[attr-defined]
    wrong = CliRunner().invoke(app, ["scan", str(tmp_path / "project"), "--from", "2.13.0", "--to", NEXT,
                                     "--index-url", "http://127.0.0.1:1/simple/"])
    assert wrong.exit_code == 2 and "--index-url: only used with --probe or --harvest" in wrong.output


def test_an_index_that_cannot_be_read_is_a_note_not_a_silent_pass(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    port = server.server_address[1]
    server.server_close()  # nothing listens there any more
    data = scan(tmp_path, "--harvest", "--index-url", f"http://127.0.0.1:{port}/simple/")
    note = next(n for n in data["notes"] if n.startswith("--harvest:"))  # type: ignore[attr-defined]
    assert f"torch {END} -> {NEXT} not harvested" in note and "cannot read the index" in note
    assert any(e["kind"] == "beyond-knowledge" for e in data["environment"])  # type: ignore[attr-defined]
