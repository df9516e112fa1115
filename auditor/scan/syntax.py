"""Sources in a syntax newer than the tool's Python: parsed by a newer interpreter, or named.

A source the running Python rejects may be valid for a newer one (PEP 695's `def f[T](x: T)` and
`type X = ...`, PEP 701's `f"{d["k"]}"` on 3.11). The newest interpreter installed (pyenv's, or
`python3.X` on PATH; `AUDITOR_SYNTAX_PYTHON` names one, or `none`) parses it in a subprocess and
sends the tree back (`marshal`, whose format every Python 3 reads); it is rebuilt with this
Python's node classes: a field this Python's class lacks (type parameters) is dropped, a
`type X = ...` statement becomes the assignment `X = ...`, `try ... except*` a `try`. What it says decides:

- it parses there: the file is analysed from that tree;
- it fails there too: a syntax error, at the line the newer parser gives;
- no newer interpreter: newer syntax only where the project's `requires-python` excludes this
  Python; otherwise a syntax error that says no newer Python could tell.

A file of newer syntax that is not read is a `newer-syntax` skip: no verdict is green with one.
"""

from __future__ import annotations

import ast
import marshal
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from auditor import tomlread
from auditor.errors import UsageError
from auditor.models import EnvironmentFinding, Skipped
from auditor.pythons import installed_pyenv, query

VARIABLE = "AUDITOR_SYNTAX_PYTHON"
RUNNING = "{}.{}".format(*sys.version_info[:2])
TIMEOUT = 60  # seconds for one file: a parse takes milliseconds
ADVICE = (
    f"install a newer Python (pyenv, python3.X on PATH, or {VARIABLE}) or run the tool under it"
)

# Run by the newer interpreter: the source on stdin; on stdout its syntax error, or each node
# class's field names and the tree, a node being a tuple (class name, its four position
# attributes, its fields' values in that order); lists stay lists; the rest are constants.
_CHILD = """
import ast, marshal, sys
AST, fields = ast.AST, {}
def encode(node):
    cls = node.__class__
    if cls not in fields:
        fields[cls] = cls._fields
    out = [cls.__name__, getattr(node, "lineno", None), getattr(node, "col_offset", None),
           getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)]
    for name in fields[cls]:
        value = getattr(node, name, None)
        if isinstance(value, AST):
            value = encode(value)
        elif value.__class__ is list:
            value = [encode(item) if isinstance(item, AST) else item for item in value]
        out.append(value)
    return tuple(out)
try:
    tree = encode(ast.parse(sys.stdin.buffer.read().decode("utf-8")))
    out = ("tree", {cls.__name__: names for cls, names in fields.items()}, tree)
except SyntaxError as exc:
    out = ("error", exc.lineno, exc.msg)
sys.stdout.buffer.write(marshal.dumps(out, 4))
"""
_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_OLDER = {"TryStar": "Try"}  # 3.11's `except*`, for the analysis a `try` like any other (on 3.10)


@dataclass(frozen=True, slots=True)
class Newer:
    path: str
    version: str  # X.Y


class Untranslatable(Exception):
    """The newer tree holds a node this Python has no class for."""


@cache
def newer_python() -> Newer | None:
    """The interpreter that reads newer syntax: `AUDITOR_SYNTAX_PYTHON` (a path, or `none`), else
    the newest newer than this Python among pyenv's and `python3.X` on PATH; None when there is
    none. Cheap: no interpreter is run unless one on PATH is newer (its version is asked)."""
    chosen = os.environ.get(VARIABLE)
    if chosen is not None:
        if chosen.strip().lower() in ("", "none"):
            return None
        found = query(chosen if os.sep in chosen else (shutil.which(chosen) or chosen))
        if found is None:
            raise UsageError(f"{VARIABLE}={chosen}: no Python interpreter runs there")
        return Newer(found.path, found.minor)
    newer = [i for i in installed_pyenv() if i.key[:2] > sys.version_info[:2]]
    newest = max(newer, key=lambda i: i.key) if newer else None
    for minor in range(20, sys.version_info[1], -1):  # one on PATH newer still
        if newest is not None and minor <= newest.key[1]:
            break
        path = shutil.which(f"python3.{minor}")
        if path and "shims" not in Path(path).parts:  # pyenv's shims: its versions are above
            found = query(path)
            if (
                found is not None and found.key[:2] > sys.version_info[:2]
            ):  # what it is, not what it is called
                newest = found if newest is None or found.key > newest.key else newest
                break
    return Newer(newest.path, newest.minor) if newest is not None else None


def parse_newer(source: str, python: Newer) -> ast.Module | tuple[int | None, str]:
    """The tree of `source` as `python` parses it, in this Python's node classes, or the
    (line, message) of its syntax error. Raises Untranslatable, OSError."""
    try:
        done = subprocess.run(
            [python.path, "-I", "-S", "-c", _CHILD],
            input=source.encode("utf-8", "surrogatepass"),
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise OSError(f"Python {python.version} took over {TIMEOUT} s to parse it") from exc
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()[-200:]
        raise OSError(
            f"Python {python.version} at {python.path} failed ({said or f'exit code {done.returncode}'})"
        )
    try:
        kind, first, second = marshal.loads(done.stdout)
    except (EOFError, ValueError, TypeError) as exc:
        raise OSError(
            f"Python {python.version} at {python.path} answered what is no syntax tree"
        ) from exc
    if kind == "error":
        return first, second
    tree = _Rebuild(first).build(second)
    assert isinstance(tree, ast.Module)
    return tree


class _Rebuild:
    """The newer tree in this Python's node classes."""

    def __init__(self, fields: dict[str, tuple[str, ...]]):
        self.fields = fields
        self.makers: dict[str, tuple[type[ast.AST], list[tuple[int, str]]]] = {}

    def build(self, value: Any) -> Any:
        if value.__class__ is list:
            return [self.build(item) for item in value]
        if value.__class__ is not tuple:
            return value
        name = value[0]
        if name == "TypeAlias":  # `type X = v`: for this Python, the assignment `X = v`
            found = dict(zip(self.fields[name], value[5:]))
            node_class: type[ast.AST] = ast.Assign
            arguments = {
                "targets": [self.build(found["name"])],
                "value": self.build(found["value"]),
            }
        else:
            node_class, places = self._maker(name)
            arguments = {field: self.build(value[at]) for at, field in places}
        arguments.update(
            (attribute, at) for attribute, at in zip(_POSITION, value[1:5]) if at is not None
        )
        return node_class(**arguments)

    def _maker(self, name: str) -> tuple[type[ast.AST], list[tuple[int, str]]]:
        """The class of `name` here, and where in a node's tuple each of its fields is (a field
        this Python's class lacks, type parameters, is dropped)."""
        if name not in self.makers:
            node_class = getattr(ast, name, None) or getattr(ast, _OLDER.get(name, ""), None)
            if not (isinstance(node_class, type) and issubclass(node_class, ast.AST)):
                raise Untranslatable(name)
            mine = set(node_class._fields)
            places = [(5 + i, field) for i, field in enumerate(self.fields[name]) if field in mine]
            self.makers[name] = node_class, places
        return self.makers[name]


def requires_newer(base: Path | None) -> str | None:
    """The project's `requires-python` when it leaves this Python out (`>=3.12` on 3.11), else None."""
    if base is None:
        return None
    return _requires_newer(base.resolve())


@cache
def _requires_newer(base: Path) -> str | None:
    try:
        data = tomlread.loads(
            (base / "pyproject.toml").read_text("utf-8-sig"), base / "pyproject.toml", UsageError
        )
        requires = str(data["project"]["requires-python"])
        if not SpecifierSet(requires).contains(
            f"{RUNNING}.{sys.version_info[2]}", prereleases=True
        ):
            return requires
    except (OSError, UnicodeDecodeError, UsageError, KeyError, TypeError, InvalidSpecifier):
        pass
    return None


def unread(
    relative: str, line: int | None, message: str, base: Path | None, failed: str | None = None
) -> Skipped:
    """Why a source this Python rejects and no newer one could read was not read. `failed`: how
    the newer Python failed, when there is one."""
    requires = requires_newer(base)
    if requires is not None:
        return Skipped(
            relative,
            f"uses syntax newer than Python {RUNNING} (the project requires Python {requires}); "
            f"the tool runs on {RUNNING}: {ADVICE}",
            "newer-syntax",
        )
    where = f"line {line}: " if line is not None else ""
    return Skipped(
        relative,
        f"{where}syntax error: {message} (under Python {RUNNING}; "
        f"{failed or 'no newer Python was found to tell newer syntax from an error'}: {ADVICE})",
        "syntax-error",
    )


def untranslatable(relative: str, python: Newer, node: str) -> Skipped:
    return Skipped(
        relative,
        f"uses Python {python.version} syntax ({node}) that the tool, on Python {RUNNING}, cannot read: "
        f"run the tool under Python {python.version}",
        "newer-syntax",
    )


def not_read(skipped: list[Skipped]) -> EnvironmentFinding | None:
    """The files of newer syntax the scan could not read, as a medium finding: a scan that
    skipped them is not green (None when there is none)."""
    paths = sorted({s.path for s in skipped if s.kind == "newer-syntax"})
    if not paths:
        return None
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    files, was, its = (
        ("1 file uses", "was", "its")
        if len(paths) == 1
        else (f"{len(paths)} files use", "were", "their")
    )
    return EnvironmentFinding(
        "newer-syntax",
        "medium",
        f"{files} syntax newer than Python {RUNNING}, the tool's, and {was} not read ({shown}): "
        f"{its} call sites are not in this report; {ADVICE}.",
    )
