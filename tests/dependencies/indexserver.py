"""A package index on 127.0.0.1 serving the recorded metadata of real wheels
(tests/fixtures/index): the PEP 691 listing, PEP 658 metadata files where asked, and each wheel as
a real zip holding that METADATA, served by byte ranges as files.pythonhosted.org serves them."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import threading
import zipfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import tomllib

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "index"


@dataclass
class Served:
    url: str  # the simple index's root
    requests: Counter[str] = field(default_factory=Counter)  # path -> times asked
    ranges: int = 0  # range requests answered
    downloads: Counter[str] = field(default_factory=Counter)  # path -> whole files sent


def _wheel(filename: str, metadata: str, sources: Path | None = None) -> bytes:
    buffer = io.BytesIO()
    dist_info = "-".join(filename.split("-")[:2]) + ".dist-info"
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if sources is None:
            archive.writestr(f"{filename.split('-')[0]}/__init__.py", "# the package's code\n" * 2000)
        for file in sorted(sources.rglob("*.py")) if sources is not None else ():
            archive.writestr(file.relative_to(sources).as_posix(), file.read_bytes())
        archive.writestr(f"{dist_info}/METADATA", metadata)
        archive.writestr(f"{dist_info}/RECORD", "")
    return buffer.getvalue()


@contextmanager
def index(
    pep658: bool = False, extra: dict[str, list[tuple[str, str]]] | None = None,
    sdists: dict[str, list[tuple[str, dict[str, str]]]] | None = None, yanked: frozenset[str] = frozenset(),
) -> Iterator[Served]:
    """`extra`: more releases, name -> [(version, METADATA text)]; `sdists`: releases with only a
    source archive, name -> [(version, {member under name-version/: text})]; `yanked`: the file
    names listed as yanked (PEP 592)."""
    files: dict[str, list[dict[str, object]]] = {}
    bodies: dict[str, bytes] = {}
    entries = [(f["name"], f["wheel"], (RECORDED / f"{f['name']}-{f['version']}.METADATA").read_text(),
                RECORDED / f["sources"] if "sources" in f else None)
               for f in tomllib.loads((RECORDED / "recorded.toml").read_text())["file"]]
    for name, releases in (extra or {}).items():
        entries += [(name, f"{name.replace('-', '_')}-{version}-py3-none-any.whl", text, None)
                    for version, text in releases]
    for name, wheel, metadata, sources in entries:
        bodies[f"/files/{wheel}"] = _wheel(wheel, metadata, sources)
        bodies[f"/files/{wheel}.metadata"] = metadata.encode()
        files.setdefault(name, []).append({
            "filename": wheel, "url": f"/files/{wheel}", "hashes": {"sha256": hashlib.sha256(bodies[f"/files/{wheel}"]).hexdigest()},
            "core-metadata": pep658, "size": len(bodies[f"/files/{wheel}"]),
            **({"yanked": "a reason"} if wheel in yanked else {}),
        })
    for name, version, members in [(n, v, m) for n, releases in (sdists or {}).items() for v, m in releases]:
        archive = f"{name}-{version}.tar.gz"
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for member, text in members.items():
                data = text.encode()
                info = tarfile.TarInfo(f"{name}-{version}/{member}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        bodies[f"/files/{archive}"] = buffer.getvalue()
        files.setdefault(name, []).append({
            "filename": archive, "url": f"/files/{archive}", "size": len(bodies[f"/files/{archive}"]),
            "hashes": {"sha256": hashlib.sha256(bodies[f"/files/{archive}"]).hexdigest()},
        })
    served = Served("")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            served.requests[self.path] += 1
            if self.path.startswith("/simple/"):
                name = self.path.split("/")[2]
                if name not in files:
                    self.send_error(404)
                    return
                self._send(200, json.dumps({"meta": {"api-version": "1.1"}, "name": name, "files": files[name]}).encode(),
                           "application/vnd.pypi.simple.v1+json")
                return
            body = bodies.get(self.path)
            if body is None or (self.path.endswith(".metadata") and not pep658):
                self.send_error(404)
                return
            wanted = self.headers.get("Range")
            if wanted is None:
                served.downloads[self.path] += 1
                self._send(200, body, "application/octet-stream")
                return
            start_text, _, end_text = wanted.removeprefix("bytes=").partition("-")
            start, end = int(start_text), int(end_text) if end_text else len(body) - 1
            served.ranges += 1
            self._send(206, body[start:end + 1], "application/octet-stream",
                       {"Content-Range": f"bytes {start}-{end}/{len(body)}"})

        def _send(self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.url = f"http://127.0.0.1:{server.server_address[1]}/simple/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
