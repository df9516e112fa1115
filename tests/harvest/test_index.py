"""The harvest end to end against a simple index served on 127.0.0.1 (HTML and JSON pages)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.harvest import HarvestSettings, harvest
from auditor.harvest.index import read_index, releases, smallest_wheel
from packaging.version import Version
from tests.harvest.wheels import NEW, OLD, sha256, write_wheel

NAME = "torchvision"  # the CLI harvests the torch family and numpy only


def renamed(files: dict[str, str]) -> dict[str, str]:
    return {path.replace("tiny/", f"{NAME}/"): text.replace("tiny", NAME) for path, text in files.items()}


@pytest.fixture
def index(tmp_path: Path) -> Iterator[tuple[str, dict[str, int]]]:
    """A simple index of torchvision 0.9 (out of range), 1.0 (a big and a small wheel), 1.5 (listed
    but missing), 2.0 and 2.1rc1; returns its URL and the count of requests per path."""
    files = tmp_path / "files"
    files.mkdir()
    wheels = [
        write_wheel(files, NAME, "0.9", renamed(OLD), "macosx_11_0_arm64"),
        write_wheel(files, NAME, "1.0", renamed(OLD), "manylinux2014_x86_64"),
        write_wheel(files, NAME, "1.0", renamed(OLD), "macosx_11_0_arm64"),
        write_wheel(files, NAME, "2.0", renamed(NEW), "macosx_11_0_arm64"),
        write_wheel(files, NAME, "2.1rc1", renamed(NEW), "macosx_11_0_arm64"),
    ]
    listed = [(w.name, sha256(w), w.stat().st_size) for w in wheels]
    listed.append((f"{NAME}-1.5-py3-none-macosx_11_0_arm64.whl", "0" * 64, 10))
    listed.append((f"{NAME}-1.7-py3-none-macosx_11_0_arm64.whl", "0" * 64, 10))  # yanked (JSON only)
    hits: dict[str, int] = {}

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(files), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            hits[self.path] = hits.get(self.path, 0) + 1
            if self.path in (f"/simple/{NAME}/", f"/html/simple/{NAME}/"):
                if "json" in self.headers.get("Accept", "") and not self.path.startswith("/html/"):
                    body = json.dumps({"files": [
                        {"filename": n, "url": f"/files/{n}", "hashes": {"sha256": h}, "size": s,
                         "yanked": "-1.7-" in n}
                        for n, h, s in listed]}).encode()
                    kind = "application/vnd.pypi.simple.v1+json"
                else:
                    body = "".join(f'<a href="/files/{n}#sha256={h}">{n}</a>\n' for n, h, _ in listed
                                   if "-1.7-" not in n).encode()
                    kind = "text/html"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if self.path.startswith("/files/"):
                self.path = self.path[len("/files"):]
                super().do_GET()
                return
            self.send_error(404)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/", hits
    finally:
        server.shutdown()
        server.server_close()


def test_releases_are_final_and_in_range_and_the_smallest_wheel_is_chosen(
        index: tuple[str, dict[str, int]]) -> None:
    url, _ = index
    files = read_index(url, NAME)
    versions = releases(files, Version("1.0"), Version("2.1"))
    assert versions == [Version("1.0"), Version("1.5"), Version("2.0")]
    chosen = smallest_wheel(files, Version("1.0"))
    assert chosen is not None and "macosx" in chosen.filename


def test_harvest_over_http_names_the_failed_release_and_goes_on(
        index: tuple[str, dict[str, int]], tmp_path: Path) -> None:
    url, hits = index
    cache = tmp_path / "cache"
    work = tmp_path / "work"
    work.mkdir()
    result = harvest(NAME, "1.0", "2.1", HarvestSettings(index=url, cache_dir=cache, work_dir=work))
    assert [r.version for r in result.releases] == ["1.0", "2.0"]
    assert result.failed and result.failed[0][0] == "1.5"
    assert any(n.startswith(f"{NAME} 1.5: not harvested:") for n in result.notes)
    assert f"{NAME} 1.7: every file is yanked on the index; not harvested" in result.notes
    assert {c.kind for c in result.candidates} >= {"symbol-removed", "deprecation-begins", "removal-stub-added"}
    assert all(c.before == "1.0" and c.release == "2.0" for c in result.candidates)
    assert list(work.iterdir()) == []  # the wheels are deleted after reading
    kept = sorted(p.name for p in (cache / NAME).iterdir())
    assert kept == ["1.0.json.gz", "2.0.json.gz"]

    # a second run reads the kept harvests and downloads no wheel again
    before = {p: n for p, n in hits.items() if p.endswith(".whl")}
    again = harvest(NAME, "1.0", "2.1", HarvestSettings(index=url, cache_dir=cache, work_dir=work))
    assert {p: n for p, n in hits.items() if p.endswith(".whl")} == {
        **before, f"/files/{NAME}-1.5-py3-none-macosx_11_0_arm64.whl": before[
            f"/files/{NAME}-1.5-py3-none-macosx_11_0_arm64.whl"] + 1}
    assert [c.id for c in again.candidates] == [c.id for c in result.candidates]


def test_html_page_without_sizes_works_too(index: tuple[str, dict[str, int]], tmp_path: Path) -> None:
    url, hits = index
    html = url.replace("/simple/", "/html/simple/")
    files = read_index(html, NAME)
    assert all(f.size is None for f in files) and {f.sha256 for f in files} != {None}
    chosen = smallest_wheel(files, Version("1.0"))
    assert chosen is not None and "macosx" in chosen.filename  # by platform, without sizes
    result = harvest(NAME, "2.0", "2.0", HarvestSettings(index=html, cache_dir=None))
    assert [r.version for r in result.releases] == ["2.0"] and result.candidates == ()
    assert hits[f"/html/simple/{NAME}/"] == 2


def test_cli_json_and_text(index: tuple[str, dict[str, int]], tmp_path: Path) -> None:
    url, _ = index
    args = ["kb", "harvest", "--package", NAME, "--from", "1.0", "--to", "2.0", "--index-url", url,
            "--cache-dir", str(tmp_path / "c")]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["schema_version"] == "1"
    assert data["failed"] == [{"version": "1.5", "reason": data["failed"][0]["reason"]}]
    assert data["pairs"][0]["from"] == "1.0" and data["pairs"][0]["to"] == "2.0"
    assert data["pairs"][0]["candidates"] == len(data["candidates"]) > 0
    first = data["candidates"][0]
    assert set(first) >= {"id", "kind", "symbol", "evidence"} and first["evidence"][0]["file"]
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 0
    assert f"{NAME} 1.0 -> 2.0:" in text.stdout and "note: torchvision 1.5: not harvested" in text.stdout


def test_cli_bad_input_exits_2(index: tuple[str, dict[str, int]]) -> None:
    url, _ = index
    bad = CliRunner().invoke(app, ["kb", "harvest", "--package", "tiny", "--from", "1", "--to", "2"])
    assert bad.exit_code == 2 and "harvest reads" in bad.output
    worse = CliRunner().invoke(app, ["kb", "harvest", "--package", NAME, "--from", "x", "--to", "2",
                                     "--index-url", url, "--no-cache"])
    assert worse.exit_code == 2 and "is not a version" in worse.output
    gone = CliRunner().invoke(app, ["kb", "harvest", "--package", NAME, "--from", "1", "--to", "2",
                                    "--index-url", "http://127.0.0.1:9/simple/", "--no-cache"])
    assert gone.exit_code == 2 and "cannot read the index" in gone.output
