"""Every file Python accepts is read: coding cookies, byte-order marks, and syntax newer than the
tool's own Python (parsed by a newer interpreter, or named as not read, and never green)."""

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.scan import scan_project

FLOOR = "torch-floor-divide-rounds-toward-floor"
VARIABLE = "AUDITOR_SYNTAX_PYTHON"
RUNNING = "{}.{}".format(*sys.version_info[:2])
OLD_PYTHON = pytest.mark.skipif(sys.version_info >= (3, 12), reason="the tool's Python reads 3.12 syntax itself")

# PEP 695 type parameters and aliases, PEP 701 quotes inside an f-string: Python 3.12
NEWER = '''import torch

type Batch = list[torch.Tensor]


def halve[T](t: torch.Tensor, pad: T) -> T:
    return t // 2


class Box[T]:
    def show(self, d: dict[str, torch.Tensor]) -> str:
        return f"{d["k"] // 2}"


def twice(a: torch.Tensor):
    return torch.floor_divide(a, 2)
'''


Use = Callable[[str | None], Any]  # AUDITOR_SYNTAX_PYTHON's value (None: unset) -> the interpreter chosen


@pytest.fixture
def use(monkeypatch: pytest.MonkeyPatch) -> Iterator[Use]:
    """Sets AUDITOR_SYNTAX_PYTHON, seen afresh; gives the newer interpreter it chooses, or None.
    (Imported here: on a tool without it, the tests of newer syntax fail, they are not skipped.)"""
    from auditor.scan import syntax
    from auditor.scan.cache import scanner_fingerprint

    def choose(value: str | None) -> Any:
        if value is None:
            monkeypatch.delenv(VARIABLE, raising=False)
        else:
            monkeypatch.setenv(VARIABLE, value)
        syntax.newer_python.cache_clear()
        scanner_fingerprint.cache_clear()
        return syntax.newer_python()

    choose(None)
    yield choose
    monkeypatch.delenv(VARIABLE, raising=False)
    syntax.newer_python.cache_clear()
    scanner_fingerprint.cache_clear()


def scan_json(project: Path, *options: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["scan", str(project), "--from", "1.12.1", "--to", "1.13.0", "-f", "json",
                                      "--no-cache", *options])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def test_a_coding_cookie_is_read_as_python_reads_it(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "latin.py").write_bytes(
        "# -*- coding: latin-1 -*-\n# Gr\xfc\xdfe\nimport torch\nu = torch.arange(-4, 4) // 2  # caf\xe9\n".encode("latin-1")
    )
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf# coding: utf-8\nimport torch\nv = torch.arange(-4, 4) // 2\n")
    (tmp_path / "unknown.py").write_bytes(b"# coding: klingon\nimport torch\n")
    (tmp_path / "lies.py").write_bytes(b"# coding: utf-8\nx = '\xe9'\n")
    findings, skipped = scan_project(tmp_path, [kb.get(FLOOR)])
    assert [(f.path, f.line, f.snippet) for f in findings] == [
        ("bom.py", 3, "v = torch.arange(-4, 4) // 2"),
        ("latin.py", 4, "u = torch.arange(-4, 4) // 2  # café"),
    ]
    assert [(s.path, s.reason, s.kind) for s in skipped] == [
        ("lies.py", "not UTF-8 text", "file"),
        ("unknown.py", "line 1: unknown encoding: klingon", "file"),
    ]


@OLD_PYTHON
def test_newer_syntax_is_read_by_a_newer_python(kb: KnowledgeBase, tmp_path: Path, use: Use) -> None:
    if use(None) is None:
        pytest.skip("no Python newer than the tool's on this machine")
    (tmp_path / "modern.py").write_text(NEWER, "utf-8")
    (tmp_path / "broken.py").write_text("import torch\ntype = 3 +\n", "utf-8")
    findings, skipped = scan_project(tmp_path, [kb.get(FLOOR)])
    assert [(f.path, f.line, f.symbol) for f in findings] == [
        ("modern.py", 7, "torch.Tensor.__floordiv__"),
        ("modern.py", 12, "torch.Tensor.__floordiv__"),
        ("modern.py", 16, "torch.floor_divide"),
    ]
    # an error for the newer Python too: a syntax error, at its line, as before
    assert [(s.path, s.reason, s.kind) for s in skipped] == [("broken.py", "line 2: syntax error: invalid syntax", "syntax-error")]


@OLD_PYTHON
def test_a_named_interpreter_reads_it_and_none_names_it_unread_and_not_green(
    kb: KnowledgeBase, tmp_path: Path, use: Use
) -> None:
    """With no newer Python, a file the project's requires-python says is newer is not read, and
    says so in every format; the exit code fails as for a medium finding."""
    newer = use(None)
    (tmp_path / "modern.py").write_text(NEWER, "utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.12"\n', "utf-8")
    if newer is not None:
        use(newer.path)
        _, document = scan_json(tmp_path)
        assert [f["line"] for f in document["findings"]] == [7, 12, 16] and document["skipped"] == []
    use("none")
    code, document = scan_json(tmp_path, "--fail-on", "medium")
    assert code == 1 and document["findings"] == []
    running = RUNNING
    assert document["skipped"] == [{
        "path": "modern.py", "kind": "newer-syntax",
        "reason": f"uses syntax newer than Python {running} (the project requires Python >=3.12); the tool runs on "
                  f"{running}: install a newer Python (pyenv, python3.X on PATH, or AUDITOR_SYNTAX_PYTHON) or run the "
                  "tool under it",
    }]
    (unread,) = [e for e in document["environment"] if e["kind"] == "newer-syntax"]
    assert unread["severity"] == "medium" and "(modern.py)" in unread["message"]
    assert unread["message"] in document["notes"]
    text = CliRunner().invoke(app, ["scan", str(tmp_path), "--from", "1.12.1", "--to", "1.13.0", "--no-cache"])
    assert text.exit_code == 1 and "call site(s) in 0 file(s), 1 file not read (listed at the end)" in text.stdout
    markdown = CliRunner().invoke(app, ["scan", str(tmp_path), "--from", "1.12.1", "--to", "1.13.0", "--no-cache",
                                        "-f", "markdown"])
    assert "**Not read**: 1 file uses syntax newer than" in markdown.stdout and "1 file not read (listed below)." in markdown.stdout


@OLD_PYTHON
def test_without_a_newer_python_or_requires_python_a_syntax_error_says_it_could_not_tell(
    kb: KnowledgeBase, tmp_path: Path, use: Use
) -> None:
    use("none")
    (tmp_path / "modern.py").write_text(NEWER, "utf-8")
    code, document = scan_json(tmp_path)
    assert code == 0  # as a syntax error always was: nothing says the file is of newer syntax
    (skip,) = document["skipped"]
    assert skip["kind"] == "syntax-error" and skip["reason"].startswith("line 3: syntax error: invalid syntax (under Python 3.")
    assert "no newer Python was found to tell newer syntax from an error" in skip["reason"]


def test_a_wrong_syntax_interpreter_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use: Use) -> None:
    from auditor.scan import syntax

    monkeypatch.setenv(VARIABLE, str(tmp_path / "nowhere" / "python"))  # not chosen through `use`: it raises
    syntax.newer_python.cache_clear()
    (tmp_path / "a.py").write_text("x = 1\n")
    result = CliRunner().invoke(app, ["scan", str(tmp_path), "--from", "1.12.1", "--to", "1.13.0", "--no-cache"])
    assert result.exit_code == 2 and "AUDITOR_SYNTAX_PYTHON" in result.output


def notebook(path: Path, *cells: str) -> Path:
    import nbformat

    document = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    path.write_text(nbformat.writes(document), "utf-8")
    return path


@OLD_PYTHON
def test_notebook_cells_of_newer_syntax_are_read_by_a_newer_python_or_named(
    kb: KnowledgeBase, tmp_path: Path, use: Use
) -> None:
    notebook(tmp_path / "explore.ipynb", "import torch\nd = {'k': torch.arange(-4, 4)}",
             'print(f"{d["k"] // 2}")', "u = torch.arange(-4, 4) // 2")
    if use(None) is not None:
        findings, skipped = scan_project(tmp_path, [kb.get(FLOOR)])
        assert [(f.cell, f.line) for f in findings] == [(2, 1), (3, 1)] and skipped == []
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.12"\n', "utf-8")
    use("none")
    findings, skipped = scan_project(tmp_path, [kb.get(FLOOR)])
    assert [(f.cell, f.line) for f in findings] == [(3, 1)]
    assert [(s.reason.split(";")[0], s.kind) for s in skipped] == [
        (f"cell 2, uses syntax newer than Python {RUNNING} (the project requires Python >=3.12)", "newer-syntax"),
    ]


def test_a_node_this_python_has_no_class_for_is_named_not_guessed() -> None:
    """A newer tree (3.14's t-strings) with a node this Python lacks: the file is not read, and
    the reason says which syntax and which Python reads it."""
    from auditor.scan import syntax

    fields = {"Module": ("body", "type_ignores"), "Expr": ("value",), "TemplateStr": ("values",)}
    tree = ("Module", None, None, None, None, [("Expr", 1, 0, 1, 6, ("TemplateStr", 1, 0, 1, 6, []))], [])
    with pytest.raises(syntax.Untranslatable) as raised:
        syntax._Rebuild(fields).build(tree)
    skip = syntax.untranslatable("t.py", syntax.Newer("/usr/bin/python3.14", "3.14"), str(raised.value))
    assert (skip.kind, skip.reason) == (
        "newer-syntax",
        (f"uses Python 3.14 syntax (TemplateStr) that the tool, on Python {RUNNING}, cannot read: run the tool "
         "under Python 3.14"),
    )


@OLD_PYTHON
@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the interpreter")
def test_a_newer_python_that_fails_is_said_and_the_file_stays_a_syntax_error(tmp_path: Path, use: Use) -> None:
    broken = tmp_path / "python3.99"  # answers who it is, then fails whatever it is given to parse
    broken.write_text(f'#!/bin/sh\ncase "$*" in *version_info*) exec "{sys.executable}" "$@";; esac\nexit 3\n')
    broken.chmod(0o755)
    use(str(broken))
    project = tmp_path / "project"
    project.mkdir()
    (project / "modern.py").write_text(NEWER, "utf-8")
    code, document = scan_json(project)
    (skip,) = document["skipped"]
    assert code == 0 and skip["kind"] == "syntax-error"
    assert "failed (exit code 3), so nothing told newer syntax from an error" in skip["reason"]
