"""`since` on generated removals: the release what a removal takes away first appeared in. A
move from before it had nothing to lose: a line that ran at the old end failed there as it does
after the removal, so only a line kept off the old end by a version guard, that runs after the
removal, meets the change (mmrazor's `reverse2`, Ray's `torch.nested_tensor` on 1.10 -> 2.15)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from packaging.version import Version

from auditor import pipeline
from auditor.harvest import HarvestSettings, harvest
from auditor.harvest.generate import Open, generate, matches, spec_change
from auditor.harvest.model import Param, Release, Symbol
from auditor.harvest.related import appeared
from auditor.harvest.shipped import pair_text, read_candidates, ship
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.report.serialize import change as serialized
from tests.harvest.test_coverage import candidate
from tests.harvest.test_fly import _Quiet
from tests.harvest.wheels import write_wheel

NAME = "torchvision"  # any package: the harvest reads every one the same way
OLD = {f"{NAME}/__init__.py": "def kept(x):\n    return x\n\ndef tuned(x):\n    return x\n"}
LATER = {f"{NAME}/__init__.py": '''
def kept(x):
    return x

def tuned(x, fast=False):
    return x

def nested(x):
    return x
'''}
REMOVED = {f"{NAME}/__init__.py": "def tuned(x):\n    return x\n"}


@pytest.fixture
def index(tmp_path: Path) -> Iterator[str]:
    """A simple index of 1.0 (without `nested` and `tuned`'s `fast`), 1.1 (listed, its wheel
    missing: not read), 1.2 (with both) and 2.0 (without both, and without `kept`)."""
    root = tmp_path / "served"
    files = root / "files"
    files.mkdir(parents=True)
    wheels = [write_wheel(files, NAME, "1.0", OLD, "macosx_11_0_arm64").name,
              f"{NAME}-1.1-py3-none-macosx_11_0_arm64.whl",
              write_wheel(files, NAME, "1.2", LATER, "macosx_11_0_arm64").name,
              write_wheel(files, NAME, "2.0", REMOVED, "macosx_11_0_arm64").name]
    page = root / "simple" / NAME
    page.mkdir(parents=True)
    (page / "index.html").write_text("".join(f'<a href="/files/{w}">{w}</a>\n' for w in wheels), "utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(type("Handler", (_Quiet,), {"hits": []}),
                                                           directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_harvest_says_since_and_ships_it(index: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    result = harvest(NAME, "1.0", "2.0", HarvestSettings(index=index, work_dir=work))
    assert [r.version for r in result.releases] == ["1.0", "1.2", "2.0"] and result.failed[0][0] == "1.1"
    since = {c.id: c.since for c in result.candidates}
    # 1.0 lacks both; 1.1 was not read, so it may have had them: since 1.1, not 1.2
    assert since[f"{NAME}@2.0:symbol-removed:{NAME}.nested"] == "1.1"
    assert since[f"{NAME}@2.0:parameter-removed:{NAME}.tuned:fast"] == "1.1"
    assert since[f"{NAME}@2.0:symbol-removed:{NAME}.kept"] is None  # in the first release read: maybe older
    ship(result, tmp_path / "knowledge")
    shipped = {c.id: c for c in read_candidates(tmp_path / "knowledge", NAME)}
    assert {cid: c.since for cid, c in shipped.items()} == since
    made, _ = generate(list(shipped.values()))
    nested = next(c for c in made if c.symbols == (f"{NAME}.nested",))
    assert nested.since == Version("1.1") and serialized(nested)["since"] == "1.1"


STUB = "torch/_C/_VariableFunctions.pyi"


def _release(version: str, *symbols: Symbol, stubbed: bool = True) -> Release:
    """A torch release with `symbols`; `stubbed`: its stubs describe torch's C functions."""
    module = Symbol("torch", "module", "torch/__init__.py", 1, "py")
    add = (Symbol("torch.add", "function", STUB, 1, STUB),) if stubbed else ()
    return Release("torch", version, f"torch-{version}.whl", (module, *add, *symbols), (), (STUB,) if stubbed else ())


def test_a_release_that_cannot_show_the_name_counts_as_having_had_it_after_one_that_can() -> None:
    """torch.nested_tensor, a C function: a release whose stubs do not describe torch's C functions
    cannot show whether it had it (torch 1.0 ships no stubs). Before the first release that can,
    such a release is outside what the harvest read of the name, as the releases before the
    harvest are; after it, it may have had it. A keyword may have gone to a `**kwargs`."""
    nested = Symbol("torch.nested_tensor", "function", STUB, 1, STUB, (Param("tensors", "positional", None),))
    releases = [_release("1.0.0", stubbed=False), _release("1.1.0"), _release("1.2.0", stubbed=False),
                _release("1.3.0"), _release("1.12.0", nested), _release("1.13.0")]
    removed = replace(candidate("symbol-removed", "torch.nested_tensor"), before="1.12.0", release="1.13.0")
    assert appeared([removed], releases)[0].since == "1.2.0"
    without = [r for r in releases if r.version != "1.2.0"]
    assert appeared([removed], without)[0].since == "1.12.0"
    listed = [Version(v) for v in ("1.0.0", "1.1.0", "1.3.0", "1.11.0", "1.12.0", "1.13.0")]
    assert appeared([removed], without, listed)[0].since == "1.11.0"  # listed, not read: it may have had it
    had = [_release("1.0.0", stubbed=False), _release("1.1.0", nested), *without[1:]]
    assert appeared([removed], had)[0].since is None  # the first release that can show it had it

    def tune(*params: Param) -> Symbol:
        return Symbol("torch.tune", "function", "torch/x.py", 1, "py", (Param("x", "positional", None), *params))

    fast = Param("fast", "keyword-only", "False")
    releases = [_release("2.0.0", tune()), _release("2.1.0", tune(Param("kwargs", "var-keyword", None))),
                _release("2.2.0", tune()), _release("2.3.0", tune(fast)), _release("2.4.0", tune())]
    dropped = replace(candidate("parameter-removed", "torch.tune", parameter="fast"), before="2.3.0", release="2.4.0")
    assert appeared([dropped], releases)[0].since == "2.1.0"  # fast= may have gone to **kwargs there
    assert appeared([dropped], releases[2:])[0].since == "2.3.0"
    assert appeared([dropped], [_release("2.0.0"), *releases[2:]])[0].since == "2.3.0"  # no tune at all: no fast=
    kept = replace(candidate("default-changed", "torch.tune", parameter="fast"), before="2.3.0", release="2.4.0")
    assert appeared([kept], releases)[0].since is None  # not a removal


def test_shipped_candidates_round_trip_since(tmp_path: Path) -> None:
    removed = replace(candidate("symbol-removed", "torch.x"), since="1.12.0")
    path = tmp_path / "torch" / "harvest" / "2.0.0..2.1.0.toml"
    path.parent.mkdir(parents=True)
    path.write_text(pair_text("torch", "2.0.0", "2.1.0", [removed]), "utf-8")
    assert 'since = "1.12.0"' in path.read_text("utf-8")
    assert read_candidates(tmp_path, "torch")[0].since == "1.12.0"


NESTED = replace(candidate("symbol-removed", "torch.nested_tensor"), id="torch@1.13.0:symbol-removed:torch.nested_tensor",
                 before="1.12.1", release="1.13.0", since="1.12.0")
SOURCE = """\
import torch
HAS_NESTED = hasattr(torch, "nested_tensor")
t = torch.nested_tensor(xs)                       # 3: unguarded
if torch.__version__ >= "1.12":
    t = torch.nested_tensor(xs)                   # 5: runs from since on only
if torch.__version__ >= "1.8":
    t = torch.nested_tensor(xs)                   # 7: runs at 1.10 too
if HAS_NESTED:
    t = torch.nested_tensor(xs)                   # 9: a test the scanner cannot read
"""


def _lines(tmp_path: Path, changes: list[SpecChange], old: str, new: str) -> list[int]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "m.py").write_text(SOURCE, "utf-8")
    result = pipeline.scan(project, old, new, KnowledgeBase(tuple(changes)))
    return sorted(f.line for f in result.findings)


def _change(c: object = NESTED) -> SpecChange:
    found = matches(c)  # type: ignore[arg-type]
    assert not isinstance(found, Open)
    return spec_change(c, found)  # type: ignore[arg-type]


def test_a_removal_of_what_the_old_end_lacked_reaches_only_code_kept_off_the_old_end(tmp_path: Path) -> None:
    change = _change()
    assert change.since == Version("1.12.0")
    # 1.10 had no nested_tensor: lines that ran there failed there, as on 2.15; line 5 did not run there
    assert _lines(tmp_path, [change], "1.10.0", "2.15.0") == [5]
    assert _lines(tmp_path, [change], "1.10.0+cu113", "2.15.0") == [5]
    # 1.12 had it: every line that runs at 2.15 loses it
    assert _lines(tmp_path, [change], "1.12.0", "2.15.0") == [3, 5, 7, 9]
    assert _lines(tmp_path, [change], "1.12.1", "1.13.0") == [3, 5, 7, 9]
    # without since, the old behaviour: every line
    assert _lines(tmp_path, [_change(replace(NESTED, since=None))], "1.10.0", "2.15.0") == [3, 5, 7, 9]
