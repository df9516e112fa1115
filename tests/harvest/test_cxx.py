"""The C++ messages: read from a fabricated wheel's libraries (in place and through a real HTTP
server answering range requests), compared release to release, shipped, reviewed and counted."""

from __future__ import annotations

import fnmatch
import functools
import http.server
import json
import random
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.version import Version
from typer.testing import CliRunner, Result

from auditor.cli import app
from auditor.errors import HarvestError, KnowledgeError
from auditor.harvest import cxx
from auditor.harvest.coverage import coverage
from auditor.harvest.index import IndexFile
from auditor.knowledge.base import KnowledgeBase

OLD_WARNINGS = [
    b"torch.ger is deprecated and will be removed in a future PyTorch release.",
    b"volatile was removed and now has no effect.",
]
NEW_WARNINGS = [
    b"torch.ger is deprecated and will be removed in a future PyTorch release.",
    b"torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') instead.",
]
NOISE = [b"_ZN2at6native3gerERKNS_6TensorE", b"Expected all tensors to be on the same device",
         b'x INTERNAL ASSERT FAILED at "ir.h":12, this is no longer a valid node']


def library(texts: list[bytes]) -> bytes:
    """Bytes shaped like a shared library's: binary filler, then NUL-terminated string literals."""
    return b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 40 + b"\0".join(texts) + b"\0" + bytes(range(200))


def wheel(path: Path, cpu: list[bytes], python: list[bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:  # what is not read comes first
        z.writestr("torch/share/big.bin", random.Random(0).randbytes(100_000))
        z.writestr("torch/lib/libtorch_cuda.so", library([b"this cuda message is deprecated and never read"]))
        z.writestr("torch/__init__.py", "")
        z.writestr("torch/lib/libtorch_cpu.so", library(cpu + NOISE))
        z.writestr("torch/lib/libtorch_python.so", library(python))
    return path


def release(tmp_path: Path, version: str, warnings: list[bytes]) -> cxx.CxxRelease:
    path = wheel(tmp_path / f"torch-{version}-cp310-cp310-manylinux1_x86_64.whl", warnings[:1], warnings[1:])
    with zipfile.ZipFile(path) as z:
        members, messages = cxx.read_zip(z)
    return cxx.CxxRelease(version, path.name, members, messages)


def test_the_libraries_warnings_are_read_and_the_rest_left() -> None:
    assert cxx.is_warning("torch.qr is deprecated in favor of torch.linalg.qr")
    assert not cxx.is_warning("_ZN2at10deprecatedE")  # a symbol, no words
    assert not cxx.is_warning("Expected all tensors to be on the same device")


def test_a_zip_is_read_for_its_torch_libraries_only(tmp_path: Path) -> None:
    r = release(tmp_path, "2.4.0", NEW_WARNINGS)
    assert r.members == ("torch/lib/libtorch_cpu.so", "torch/lib/libtorch_python.so")
    assert r.messages == (
        ("torch.ger is deprecated and will be removed in a future PyTorch release.", "torch/lib/libtorch_cpu.so"),
        ("torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') instead.",
         "torch/lib/libtorch_python.so"),
    )


def test_a_string_cut_between_two_chunks_is_read_whole() -> None:
    text = b"torch.lu is deprecated in favor of torch.linalg.lu_factor"
    data = b"\x01\x02" + text + b"\0\xff" + b"Another message that is long enough" + b"\0"
    for cut in range(len(data) + 1):
        assert list(cxx.strings([data[:cut], data[cut:]])) == [text.decode(), "Another message that is long enough"]
    assert list(cxx.strings([b"\0" + text])) == [text.decode()]  # a run that ends the stream


def test_release_to_release_messages_appear_and_disappear(tmp_path: Path) -> None:
    old, new = release(tmp_path, "2.3.0", OLD_WARNINGS), release(tmp_path, "2.4.0", NEW_WARNINGS)
    found = cxx.compare(old, new)
    assert [(c.kind, c.before, c.release, c.library, c.message) for c in found] == [
        ("message-added", "2.3.0", "2.4.0", "torch/lib/libtorch_python.so", NEW_WARNINGS[1].decode()),
        ("message-removed", "2.3.0", "2.4.0", "torch/lib/libtorch_python.so", OLD_WARNINGS[1].decode()),
    ]
    assert found[0].id.startswith("torch@2.4.0:cxx-added:") and found[1].id.startswith("torch@2.4.0:cxx-removed:")
    assert cxx.compare(new, new) == []


class _Ranges(http.server.SimpleHTTPRequestHandler):
    """A file server that answers `Range: bytes=a-b` with 206 and those bytes only."""

    served = 0

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        data = Path(self.translate_path(self.path)).read_bytes()
        first, last = self.headers["Range"].removeprefix("bytes=").split("-")
        part = data[int(first):int(last) + 1]
        self.send_response(206)
        self.send_header("Content-Length", str(len(part)))
        self.end_headers()
        _Ranges.served += len(part)  # counted before the client can read the bytes and compare
        self.wfile.write(part)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Ranges, directory=str(tmp_path)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_remote_wheel_is_read_through_range_requests_without_downloading_it(tmp_path: Path, server: str) -> None:
    path = wheel(tmp_path / "torch-2.4.0-cp310-cp310-manylinux1_x86_64.whl", NEW_WARNINGS[:1], NEW_WARNINGS[1:])
    _Ranges.served = 0
    file = IndexFile(path.name, f"{server}/{path.name}", Version("2.4.0"), path.stat().st_size, None, False)
    remote = cxx.read_remote(file)
    local = release(tmp_path, "2.4.0", NEW_WARNINGS)
    assert (remote.members, remote.messages) == (local.members, local.messages)
    assert remote.fetched == _Ranges.served
    assert remote.fetched < path.stat().st_size // 10  # the 100 kB member it does not read stays on the server


def test_the_cache_keeps_the_messages_not_the_library(tmp_path: Path) -> None:
    r = release(tmp_path, "2.4.0", NEW_WARNINGS)
    cxx.store(tmp_path / "cache", "torch", r)
    kept = cxx.cache_path(tmp_path / "cache", "torch", "2.4.0")
    assert kept.stat().st_size < 1000
    assert cxx.load(tmp_path / "cache", "torch", "2.4.0") == r
    assert cxx.load(tmp_path / "cache", "torch", "2.5.0") is None
    kept.write_bytes(b"not gzip")
    assert cxx.load(tmp_path / "cache", "torch", "2.4.0") is None  # read again, not trusted


def test_the_best_wheel_is_cpython_3_10_on_linux(tmp_path: Path) -> None:
    def f(name: str) -> IndexFile:
        return IndexFile(name, "u", Version(name.split("-")[1]), 1, None, False)

    files = [f("torch-1.4.0-cp38-cp38-manylinux1_x86_64.whl"), f("torch-1.4.0-cp37-cp37m-manylinux1_x86_64.whl"),
             f("torch-1.4.0-cp38-none-macosx_10_9_x86_64.whl"), f("torch-2.4.0-cp310-cp310-manylinux1_x86_64.whl"),
             f("torch-2.4.0-cp312-cp312-manylinux1_x86_64.whl"), f("torch-2.4.0-cp310-cp310-win_amd64.whl")]
    chosen = [cxx.choose_wheel(files, Version(v)) for v in ("1.4.0", "2.4.0")]
    assert [f.filename if f else None for f in chosen] == [
        "torch-1.4.0-cp38-cp38-manylinux1_x86_64.whl", "torch-2.4.0-cp310-cp310-manylinux1_x86_64.whl"]
    assert cxx.choose_wheel(files, Version("2.5.0")) is None


CURATED = '''
id = "torch-ger-deprecated"
package = "torch"
introduced = "2.4"
kind = "deprecated"
silent = false
severity = "low"
title = "torch.ger is deprecated"
symbols = ["torch.ger"]
references = ["https://example.org/torch/changelog"]

[[match]]
call = "torch.ger"

[docs]
what = "torch.ger(a, b) is deprecated in favour of torch.outer(a, b), which computes the same product."
why = "Every call of torch.ger warns once torch 2.4 is installed, and a later release removes it."
before = "torch.ger(a, b)"
keep_old = "pin torch<2.4"
adopt_new = "torch.outer(a, b)"
'''


def shipped(tmp_path: Path, review: str) -> Path:
    root = tmp_path / "knowledge"
    (root / "torch" / "2.4" / "ger-deprecated").mkdir(parents=True)
    (root / "torch" / "2.4" / "ger-deprecated" / "change.toml").write_text(CURATED.lstrip(), "utf-8")
    releases = [release(tmp_path, "2.3.0", OLD_WARNINGS[1:]), release(tmp_path, "2.4.0", NEW_WARNINGS),
                release(tmp_path, "2.5.0", NEW_WARNINGS)]
    written = cxx.ship("torch", releases, cxx.compare_all(releases), root)
    assert [p.name for p in written] == ["2.3.0..2.4.0.toml"]  # 2.4 to 2.5: nothing changes, no file
    (root / "torch" / "harvest" / "cxx" / "review.toml").write_text(review, "utf-8")
    return root


REVIEW = '''
[[message]]
match = "torch.ger is deprecated*"
symbol = "torch.ger"
entry = "torch-ger-deprecated"

[[message]]
match = "volatile was removed*"
symbol = "torch.autograd.Variable(volatile=...)"
waived = "the legacy Variable constructor's flag, gone since 0.4; the message only goes away"
'''


def test_shipped_candidates_round_trip(tmp_path: Path) -> None:
    root = shipped(tmp_path, REVIEW)
    releases = [release(tmp_path, "2.3.0", OLD_WARNINGS[1:]), release(tmp_path, "2.4.0", NEW_WARNINGS)]
    assert cxx.read_candidates(root, "torch") == cxx.compare_all(releases)
    text = (root / "torch" / "harvest" / "cxx" / "2.3.0..2.4.0.toml").read_text("utf-8")
    assert text == cxx.pair_text("torch", releases[0], releases[1], cxx.compare_all(releases))


def test_kb_coverage_counts_the_cxx_candidates_covered_waived_and_open(tmp_path: Path) -> None:
    root = shipped(tmp_path, REVIEW)
    kb = KnowledgeBase.load(root)
    result = coverage(root, "torch", kb.entries, witnessed=True)
    states = sorted((s.state, s.candidate.message[:20], s.why[:24]) for s in result.cxx)
    assert states == [
        ("covered", "torch.ger is depreca", "torch-ger-deprecated"),
        ("open", "torch.is_autocast_cp", "no review takes the mess"),
        ("waived", "volatile was removed", "the legacy Variable cons"),
    ]
    out = CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(root), "--package", "torch",
                                   "--format", "json"])
    cxx_report = json.loads(out.stdout)["packages"][0]["cxx"]
    assert cxx_report["totals"] == {"candidates": 3, "covered": 1, "waived": 1, "open": 1}
    assert cxx_report["releases"] == [{"from": "2.3.0", "to": "2.4.0", "candidates": 3,
                                       "covered": 1, "waived": 1, "open": 1}]
    assert [o["message"] for o in cxx_report["open"]] == [NEW_WARNINGS[1].decode()]
    text = CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(root), "--package", "torch", "-v"]).stdout
    assert "C++ messages:" in text and "open torch@2.4.0:cxx-added:" in text


def test_a_review_naming_no_entry_leaves_its_messages_open(tmp_path: Path) -> None:
    root = shipped(tmp_path, REVIEW.replace('entry = "torch-ger-deprecated"', 'entry = "no-such-entry"'))
    result = coverage(root, "torch", KnowledgeBase.load(root).entries, witnessed=True)
    ger = next(s for s in result.cxx if s.candidate.message.startswith("torch.ger"))
    assert (ger.state, ger.why) == ("open", "reviewed as covered by no-such-entry, which is no curated entry")


def test_a_review_without_a_decision_is_a_knowledge_error(tmp_path: Path) -> None:
    root = shipped(tmp_path, '[[message]]\nmatch = "*"\nsymbol = ""\n')
    with pytest.raises(KnowledgeError, match=r"review.toml: message\[0\]: needs `match`, `symbol`, and one of"):
        cxx.read_review(root, "torch")


def test_the_shipped_cxx_candidates_of_torch_are_all_reviewed(shipped_coverage: Result) -> None:
    torch = next(p for p in json.loads(shipped_coverage.stdout)["packages"] if p["package"] == "torch")
    assert torch["cxx"]["totals"]["candidates"] > 0
    assert torch["cxx"]["open"] == []
    assert torch["cxx"]["totals"]["covered"] + torch["cxx"]["totals"]["waived"] == torch["cxx"]["totals"]["candidates"]


def test_a_review_may_take_only_the_removals(tmp_path: Path) -> None:
    review = REVIEW.replace('match = "volatile was removed*"', 'match = "volatile was removed*"\nkind = "message-added"')
    root = shipped(tmp_path, review)
    volatile = next(s for s in coverage(root, "torch", KnowledgeBase.load(root).entries, witnessed=True).cxx
                    if s.candidate.message.startswith("volatile"))
    assert (volatile.candidate.kind, volatile.state) == ("message-removed", "open")  # the review takes additions only
    root = shipped(tmp_path / "bad", review.replace('kind = "message-added"', 'kind = "added"'))
    with pytest.raises(KnowledgeError, match=r"message\[1\]: kind: 'added' is not one of message-added, message-removed"):
        cxx.read_review(root, "torch")


def test_every_shipped_review_takes_a_candidate() -> None:
    from auditor.knowledge.loader import default_directory

    root = default_directory()
    candidates = cxx.read_candidates(root, "torch")
    stale = [r.match for r in cxx.read_review(root, "torch")
             if not any(r.kind in (None, c.kind) and fnmatch.fnmatchcase(c.message, r.match) for c in candidates)]
    assert candidates and stale == []


class _Whole(_Ranges):
    """A server that ignores Range and answers 200 with the whole file."""

    def do_GET(self) -> None:
        data = Path(self.translate_path(self.path)).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_a_server_without_range_requests_is_a_clear_error(tmp_path: Path) -> None:
    path = wheel(tmp_path / "torch-2.4.0-cp310-cp310-manylinux1_x86_64.whl", NEW_WARNINGS[:1], NEW_WARNINGS[1:])
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Whole, directory=str(tmp_path)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/{path.name}"
        file = IndexFile(path.name, url, Version("2.4.0"), path.stat().st_size, None, False)
        with pytest.raises(HarvestError, match="does not answer range requests .status 200."):
            cxx.read_remote(file)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(("args", "says"), [
    (["--from", "2.13.0", "--to", "2.4.0"], "--from 2.13.0 is newer than --to 2.4.0"),
    (["--from", "two"], "Invalid version: 'two'"),
])
def test_kb_cxx_refuses_a_bad_range_before_reading_anything(args: list[str], says: str) -> None:
    out = CliRunner().invoke(app, ["kb", "cxx", *args])
    assert out.exit_code == 2 and says in out.output and "Traceback" not in out.output
