"""The pool and the cache are routes, not results: whatever the route, the same findings and
skipped files as the plain loop over `scan_file`, and a cache that never serves a stale answer."""

from __future__ import annotations

import ast
import io
import json
import shutil
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.knowledge.folders import change_folders, fixtures, folder_id
from auditor.models import Finding, Skipped
from auditor.progress import RichProgressBar
from auditor.scan import RuleIndex, scan_file, scan_project
from auditor.scan.cache import DATABASE, MAX_AGE_DAYS, encode
from auditor.scan.config import ScanConfig
from auditor.scan.discover import discover
from auditor.scan.project import ScanOptions
from auditor.scan.walk import FastVisitor

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = [
    (folder_id(folder), source)
    for folder in change_folders(ROOT / "knowledge")
    for source in fixtures(folder, "positive") + fixtures(folder, "negative")
]
EXAMPLE = ROOT / "examples" / "project"
FLOOR = "torch-floor-divide-rounds-toward-floor"

Result = tuple[list[Finding], list[Skipped]]


def reference(root: Path, changes: tuple[SpecChange, ...], config: ScanConfig | None = None) -> Result:
    """The serial, uncached scan written out as the plain loop it replaces."""
    config = config or ScanConfig()
    index = RuleIndex.build(c for c in changes if c.id not in config.ignore)
    base = root if root.is_dir() else root.parent
    discovered = discover(root, config)
    findings: list[Finding] = []
    skipped: list[Skipped] = list(discovered.skipped)
    for file in discovered.files:
        found, passed = scan_file(file, file.relative_to(base).as_posix(), index)
        findings += [f for f in found if config.keeps(f)]
        skipped += passed
    findings.sort(key=lambda f: (f.path, f.cell or 0, f.line, f.column, f.change, f.symbol))
    return findings, skipped


@pytest.fixture(scope="module")
def changes() -> tuple[SpecChange, ...]:
    return KnowledgeBase.load().entries


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """Every scanner fixture (a few hundred files), the example project, the same module under
    two names, and files that are skipped: bad syntax, not UTF-8, a broken notebook."""
    root = tmp_path / "tree"
    for number, (change_id, source) in enumerate(sorted(FIXTURES)):
        target = root / f"pkg{number % 7}" / change_id / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    shutil.copytree(EXAMPLE, root / "example")
    twin = "import torch\n\ndef f(a: torch.Tensor):\n    return a // 2\n"
    (root / "twin_a.py").write_text(twin)
    (root / "deep" / "er").mkdir(parents=True)
    (root / "deep" / "er" / "twin_b.py").write_text(twin)
    (root / "broken.py").write_text("import torch\ndef f(:\n    return torch.floor_divide(1, 2)\n")
    (root / "latin1.py").write_bytes("# caf\xe9\nimport torch\nx = torch.tensor([1]) // 2\n".encode("latin-1"))
    (root / "broken.ipynb").write_text('{"cells": [')
    return root


def scan(root: Path, changes: tuple[SpecChange, ...], **options: object) -> Result:
    return scan_project(root, changes, None, ScanOptions(**options))  # type: ignore[arg-type]


def test_the_tree_exercises_findings_and_skips(tree: Path, changes: tuple[SpecChange, ...]) -> None:
    findings, skipped = reference(tree, changes)
    assert len(discover(tree).files) > 300
    assert len(findings) > 100 and len({f.path for f in findings}) > 100
    assert {s.path for s in skipped} >= {"broken.py", "latin1.py", "broken.ipynb"}
    assert any(f.cell is not None for f in findings)  # the example's notebook


@pytest.mark.parametrize("workers", [1, 2, None])
def test_serial_and_parallel_scans_give_the_plain_loops_result(
    tree: Path, changes: tuple[SpecChange, ...], workers: int | None
) -> None:
    assert scan(tree, changes, workers=workers) == reference(tree, changes)


def test_the_example_project_scans_the_same_every_way(changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    crossed = tuple(c for c in changes if c.package == "torch")
    expected = reference(EXAMPLE, crossed)
    assert expected[0]
    assert scan(EXAMPLE, crossed, workers=2) == expected
    assert scan(EXAMPLE, crossed, workers=2, cache_dir=tmp_path / "cache") == expected  # cold
    assert scan(EXAMPLE, crossed, workers=1, cache_dir=tmp_path / "cache") == expected  # warm


def test_a_single_file_is_scanned_the_same_way(changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    file = EXAMPLE / "quantize.py"
    expected = reference(file, changes)
    assert scan(file, changes, cache_dir=tmp_path / "cache") == expected
    assert scan(file, changes, cache_dir=tmp_path / "cache") == expected


def test_cold_and_warm_cached_scans_give_the_plain_loops_result(
    tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    expected = reference(tree, changes)
    assert scan(tree, changes, workers=2, cache_dir=cache) == expected
    with sqlite3.connect(cache / DATABASE) as db:
        (stored,) = db.execute("SELECT COUNT(*) FROM entries").fetchone()
    assert stored == len(discover(tree).files)
    assert scan(tree, changes, workers=2, cache_dir=cache) == expected
    assert scan(tree, changes, workers=1, cache_dir=cache) == expected


def test_entries_unused_for_a_month_are_deleted_and_read_ones_kept(
    tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    expected = reference(tree, changes)
    scan(tree, changes, cache_dir=cache)
    today = int(time.time() // 86400)
    with sqlite3.connect(cache / DATABASE) as db:
        # as if every entry was last used long ago, and one more stands for a file since deleted
        db.execute("UPDATE entries SET used = ?", (today - MAX_AGE_DAYS - 5,))
        db.execute("INSERT INTO entries (key, value, used) VALUES (?, ?, ?)", (b"gone", b"[]", today - MAX_AGE_DAYS - 5))
    assert scan(tree, changes, cache_dir=cache) == expected  # every file found: read, so used today
    with sqlite3.connect(cache / DATABASE) as db:
        rows = dict(db.execute("SELECT key, used FROM entries").fetchall())
    assert b"gone" not in rows
    assert len(rows) == len(discover(tree).files)
    assert set(rows.values()) == {today}


def test_twins_keep_their_own_paths(tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    scan(tree, changes, cache_dir=cache)
    findings, _ = scan(tree, changes, cache_dir=cache)
    twins = sorted((f.path, f.line) for f in findings if f.path.endswith(("twin_a.py", "twin_b.py")))
    assert twins == [("deep/er/twin_b.py", 4), ("twin_a.py", 4)]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_warm_scan_reads_its_results_from_the_cache(
    tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path, workers: int
) -> None:
    """Proof that the second scan does not parse: a value planted in the cache comes back. The
    first scan, into a blank cache, made the keys where it read the files (in the processes
    with two workers); the second looks them up from the bytes it reads itself."""
    cache = tmp_path / "cache"
    scan(tree, changes, workers=workers, cache_dir=cache)
    planted = Finding(FLOOR, "torch.planted", "", 7, 3, None, "high", "planted", "x // y")
    with sqlite3.connect(cache / DATABASE) as db:
        db.execute("UPDATE entries SET value = ?", (encode(([planted], [], None)),))
    findings, skipped = scan(tree, changes, cache_dir=cache)
    assert {f.symbol for f in findings} == {"torch.planted"}
    assert {f.path for f in findings} == {f.relative_to(tree).as_posix() for f in discover(tree).files}
    assert skipped == []


def test_an_edited_file_is_scanned_again(tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    scan(tree, changes, cache_dir=cache)
    edited = tree / "twin_a.py"
    edited.write_text(edited.read_text() + "\ndef g(b: torch.Tensor):\n    return torch.floor_divide(b, 3)\n")
    (tree / "broken.py").write_text("x = 1\n")  # fixed: no longer skipped
    expected = reference(tree, changes)
    assert scan(tree, changes, cache_dir=cache) == expected
    assert [f.line for f in expected[0] if f.path == "twin_a.py"] == [4, 7]
    assert "broken.py" not in {s.path for s in expected[1]}


def test_other_knowledge_is_a_miss(tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    floor_only = tuple(c for c in changes if c.id == FLOOR)
    scan(tree, floor_only, cache_dir=cache)
    assert scan(tree, changes, cache_dir=cache) == reference(tree, changes)
    # an edited entry (its title is the findings' message) is other knowledge too
    retitled = tuple(replace(c, title="Retitled") if c.id == FLOOR else c for c in floor_only)
    findings, _ = scan(tree, retitled, cache_dir=cache)
    assert findings and {f.message for f in findings} <= {"Retitled", *(m.message for m in retitled[0].matches)}
    assert (findings, _) == reference(tree, retitled)


def test_a_damaged_database_is_replaced(tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / DATABASE).write_bytes(b"this is not a database" * 100)
    expected = reference(tree, changes)
    assert scan(tree, changes, cache_dir=cache) == expected
    assert scan(tree, changes, cache_dir=cache) == expected
    with sqlite3.connect(cache / DATABASE) as db:
        assert db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] > 0


def test_an_unusable_cache_directory_only_costs_the_cache(tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    assert scan(tree, changes, cache_dir=blocker / "cache") == reference(tree, changes)


def _listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_the_cli_caches_under_cache_dir_only_and_not_at_all_with_no_cache(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    before = _listing(project)
    runner = CliRunner()
    command = ["scan", str(project), "--from", "1.10", "--to", "2.15", "--format", "json", "--fail-on", "none"]

    uncached = runner.invoke(app, [*command, "--cache-dir", str(tmp_path / "none"), "--no-cache"])
    assert uncached.exit_code == 0, uncached.output
    assert not (tmp_path / "none").exists()

    cold = runner.invoke(app, [*command, "--cache-dir", str(tmp_path / "cache")])
    warm = runner.invoke(app, [*command, "--cache-dir", str(tmp_path / "cache")])
    assert cold.exit_code == warm.exit_code == 0
    assert cold.stdout == warm.stdout == uncached.stdout
    assert json.loads(cold.stdout)["findings"]
    listing = _listing(tmp_path / "cache")
    assert [p for p in listing if not p.startswith("knowledge")] == ["scan", "scan/CACHEDIR.TAG", f"scan/{DATABASE}"]
    assert [p for p in listing if p.startswith("knowledge/")][0].endswith(".json")  # the parsed knowledge base, as JSON
    assert _listing(project) == before
    assert cold.stderr == warm.stderr == ""  # no progress bar in JSON runs or without a terminal


def test_the_progress_bar_counts_files_and_goes_away(tree: Path, changes: tuple[SpecChange, ...]) -> None:
    screen = io.StringIO()
    bar = RichProgressBar(Console(file=screen, force_terminal=True, width=100), delay=0, interval=0)
    assert scan(tree, changes, progress=bar, workers=2) == reference(tree, changes)
    total = len(discover(tree).files)
    assert f"{total}/{total}" in screen.getvalue() or f"/{total}" in screen.getvalue()
    assert bar._bar is None  # stopped


def test_could_match_looks_for_whole_names_and_real_operators(changes: tuple[SpecChange, ...]) -> None:
    index = RuleIndex.build(c for c in changes if c.id == FLOOR)
    assert set(index.tokens) >= {"//", "floor_divide"}
    torch = "import torch\n"
    assert not index.could_match(torch + '"""See https://example.org/x."""\nmy_floor_divide_helper = 1\n')
    assert index.could_match(torch + "y = x // 2\n")
    assert index.could_match(torch + "y = x//2\n")
    assert index.could_match("from torch import floor_divide as fd\n")
    assert index.could_match("torch.floor_divide")
    assert index.could_match(torch + "x\n//=2")
    # without the module no name can resolve to it and no value can be tagged from it
    assert not index.could_match("y = x // 2\n")
    assert not index.could_match("import numpy as np\nnp.floor_divide(a, 2)\n")


class _Recorder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.seen: list[tuple[str, int, int]] = []

    def generic_visit(self, node: ast.AST) -> None:
        self.seen.append((type(node).__name__, getattr(node, "lineno", 0), getattr(node, "col_offset", 0)))
        super().generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.seen.append(("call!", node.lineno, node.col_offset))
        self.generic_visit(node)


class _FastRecorder(FastVisitor, _Recorder):
    def generic_visit(self, node: ast.AST) -> None:
        self.seen.append((type(node).__name__, getattr(node, "lineno", 0), getattr(node, "col_offset", 0)))
        FastVisitor.generic_visit(self, node)


LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


SOURCES = sorted((ROOT / "auditor").rglob("*.py"), key=lambda p: (-p.stat().st_size, p))[:20]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_fast_walk_visits_what_ast_nodevisitor_visits(source: Path) -> None:
    tree = ast.parse(source.read_text("utf-8"))
    slow, fast = _Recorder(), _FastRecorder()
    slow.visit(tree)
    fast.visit(tree)
    leaves = {cls.__name__ for base in LEAVES for cls in [base, *base.__subclasses__()]}
    assert fast.seen == [s for s in slow.seen if s[0] not in leaves]
    assert len(fast.seen) > 500


def test_the_fast_walk_makes_no_call_for_a_node_that_holds_no_nodes() -> None:
    """A constant (the most common leaf after names), an import's alias, a `global`'s names:
    dispatched to nothing, unless the visitor handles them."""

    class Plain(FastVisitor):
        pass

    class Constants(FastVisitor):
        def visit_Constant(self, node: ast.Constant) -> None:
            self.found.append(node.value)

        def __init__(self) -> None:
            self.found: list[object] = []

    tree = ast.parse("import a as b\ndef f():\n    global g\n    return g(1, 'x')\n")
    Plain().visit(tree)
    assert {Plain._dispatch[c] for c in (ast.Constant, ast.alias, ast.Global)} == {None}
    assert Plain._dispatch[ast.Call] is not None
    constants = Constants()
    constants.visit(tree)
    assert constants.found == [1, "x"]


def test_an_unusable_cache_is_said_once_in_the_report(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    command = ["scan", str(project), "--from", "1.12.1", "--to", "1.13.0", "-f", "json", "--fail-on", "none"]
    done = CliRunner().invoke(app, [*command, "--cache-dir", str(blocker)])
    notes = json.loads(done.stdout)["notes"]
    scan_notes = [n for n in notes if "scan cache" in n]
    assert len(scan_notes) == 1 and str(blocker / "scan") in scan_notes[0] and "every file was scanned" in scan_notes[0]
    assert len([n for n in notes if "knowledge base" in n]) == 1  # the kept knowledge base, said once too


def test_damaged_results_in_the_cache_are_scanned_again_and_said(
    tree: Path, changes: tuple[SpecChange, ...], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    scan(tree, changes, cache_dir=cache)
    with sqlite3.connect(cache / DATABASE) as db:
        db.execute("UPDATE entries SET value = ?", (b"[not json",))
    heard: list[str] = []
    assert scan(tree, changes, cache_dir=cache, note=heard.append) == reference(tree, changes)
    assert heard == [f"the scan cache in {cache} held damaged results: those files were scanned again"]


def test_results_are_written_while_the_scan_goes_on_and_the_rest_at_close(
    changes: tuple[SpecChange, ...], tmp_path: Path
) -> None:
    from auditor.scan.cache import _WRITE_EVERY, ScanCache

    cache = ScanCache.open(tmp_path, changes[:3])
    for number in range(_WRITE_EVERY + 5):
        cache.put(cache.key(str(number).encode(), f"m{number}.py"), ([], [], None))
    with sqlite3.connect(tmp_path / DATABASE) as db:  # another reader sees the first batch already
        assert db.execute("SELECT COUNT(*) FROM entries").fetchone() == (_WRITE_EVERY,)
    cache.close()
    with sqlite3.connect(tmp_path / DATABASE) as db:
        assert db.execute("SELECT COUNT(*) FROM entries").fetchone() == (_WRITE_EVERY + 5,)
    assert cache.problems == []


def test_a_write_failing_midway_is_said_once_and_the_rest_is_not_stored(
    changes: tuple[SpecChange, ...], tmp_path: Path
) -> None:
    from auditor.scan.cache import _WRITE_EVERY, ScanCache

    cache = ScanCache.open(tmp_path, changes[:3])
    with sqlite3.connect(tmp_path / DATABASE) as db:
        db.execute("DROP TABLE entries")  # what a full disk or a damaged file would do to the writes
    for number in range(3 * _WRITE_EVERY):
        cache.put(cache.key(str(number).encode(), f"m{number}.py"), ([], [], None))
    cache.close()
    assert len(cache.problems) == 1
    assert cache.problems[0].startswith(f"the results of this scan could not be kept in {tmp_path} (")
    assert "the next scan reads the files again" in cache.problems[0]


def test_a_cache_that_never_held_these_rules_is_not_asked(changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    """A blank cache (no result of this scanner and these rules was ever stored in it): the
    files are not read to be looked up, all of them are left to scan at once; once results are
    stored it is asked, and it is blank again when they are all too old to be kept."""
    from auditor.progress import SILENT
    from auditor.scan.cache import ScanCache
    from auditor.scan.modules import ProjectModules
    from auditor.scan.project import _from_cache

    for number in range(3):
        (tmp_path / f"m{number}.py").write_text("import torch\n")
    files = sorted(tmp_path.glob("*.py"))
    relatives = [f.name for f in files]
    cache = ScanCache.open(tmp_path / "cache", changes[:3])
    assert cache.blank
    keys: dict[int, object] = {}
    results: list[object] = [None] * len(files)
    modules = ProjectModules(tmp_path, relatives)
    assert list(_from_cache(files, relatives, results, cache, SILENT, modules, keys, {})) == [[0, 1, 2]]  # type: ignore[arg-type]
    assert keys == {}  # nothing read
    cache.close()
    assert ScanCache.open(tmp_path / "cache", changes[:3]).blank  # nothing was stored: still blank
    scan(tmp_path, changes[:3], cache_dir=tmp_path / "cache")
    assert not ScanCache.open(tmp_path / "cache", changes[:3]).blank
    assert ScanCache.open(tmp_path / "cache", changes[3:6]).blank  # other rules: another context
    today = int(time.time() // 86400)
    with sqlite3.connect(tmp_path / "cache" / DATABASE) as db:
        db.execute("UPDATE entries SET used = ?", (today - MAX_AGE_DAYS - 5,))
        db.execute("UPDATE contexts SET used = ?", (today - MAX_AGE_DAYS - 5,))
    ScanCache.open(tmp_path / "cache", changes[3:6]).close()  # a scan with other rules deletes the old ones
    with sqlite3.connect(tmp_path / "cache" / DATABASE) as db:
        assert db.execute("SELECT COUNT(*) FROM contexts").fetchone() == (0,)
    assert ScanCache.open(tmp_path / "cache", changes[:3]).blank


def test_the_first_lookup_ends_where_a_pool_would_start(changes: tuple[SpecChange, ...], tmp_path: Path) -> None:
    """The first batch of misses comes out after PARALLEL_MIN_BYTES of files, not after
    _LOOKUP_BATCH files: the processes start while the rest is read."""
    from auditor.progress import SILENT
    from auditor.scan.cache import ScanCache
    from auditor.scan.modules import ProjectModules
    from auditor.scan.project import _LOOKUP_BATCH, PARALLEL_MIN_BYTES, _from_cache

    body = "x = 1\n" * (PARALLEL_MIN_BYTES // 6 // 4 + 1)  # four files make a megabyte
    for number in range(40):
        (tmp_path / f"m{number:02}.py").write_text(body if number < 8 else "y = 2\n")
    files = sorted(tmp_path.glob("*.py"))
    relatives = [f.name for f in files]
    cache = ScanCache.open(tmp_path / "cache", changes[:3])
    cache.put(b"another file's key", ([], [], None))  # a cache that holds results of these rules is asked
    cache.close()
    cache = ScanCache.open(tmp_path / "cache", changes[:3])
    assert not cache.blank
    results: list[object] = [None] * len(files)
    batches = list(_from_cache(files, relatives, results, cache, SILENT, ProjectModules(tmp_path, relatives), {}, {}))  # type: ignore[arg-type]
    cache.close()
    assert [len(b) for b in batches] == [4, 36]
    assert 40 <= _LOOKUP_BATCH
    assert sorted(i for b in batches for i in b) == list(range(40))


@pytest.mark.parametrize(
    "data",
    [b"x = 1\r\ny = 2\r\n", b"a = 1\rb = 2\r", "\ufeffname = '\u00e9t\u00e9'\r\n".encode(), b"", b"\r\r\n\n", b"t = 1\n"],
)
def test_sources_read_as_read_text_reads_them(data: bytes, tmp_path: Path) -> None:
    from auditor.scan.scanner import read_source

    path = tmp_path / "m.py"
    path.write_bytes(data)
    assert read_source(path) == path.read_text("utf-8-sig")


def test_a_source_that_is_not_utf8_is_still_said_so(tmp_path: Path, changes: tuple[SpecChange, ...]) -> None:
    (tmp_path / "latin.py").write_bytes("# caf\xe9\nimport torch\n".encode("latin-1"))
    assert scan_file(tmp_path / "latin.py", "latin.py", RuleIndex.build(changes))[1] == [Skipped("latin.py", "not UTF-8 text")]


def test_a_file_is_read_with_the_stamp_it_had_before(tmp_path: Path) -> None:
    from auditor.scan.project import _read, _stamp

    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n" * 50_000)
    data, stamp = _read(path)
    assert data == path.read_bytes() and stamp == _stamp(path) == (path.stat().st_mtime_ns, 300_000)
    with pytest.raises(OSError):
        _read(tmp_path / "missing.py")
