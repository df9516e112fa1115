"""Code cells of a Jupyter notebook, with IPython syntax blanked so `ast` can read the rest."""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

# Cell magics whose body is still Python; any other `%%name` cell is another language.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "python", "python3"})
_TIMED_LINE = re.compile(r"^(\s*)%(?:time|timeit|prun)\s+(?!-)(.+)$")
_MAGIC_LINE = re.compile(r"^\s*(%|!|\?)|^\s*[\w.,\s]+=\s*[%!]|^\s*[\w.]+\?\??\s*$")


class NotebookError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Cell:
    index: int  # 1-based among all cells, markdown and raw included
    source: str  # Python source with magics blanked (line numbers kept)


def _text(source: object) -> str:
    if isinstance(source, list):
        return "".join(str(part) for part in source)
    return str(source or "")


def blank_magics(source: str) -> str | None:
    """Blank IPython-only lines; None when the cell is not Python at all."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        name = lines[0].strip()[2:].split(maxsplit=1)[0] if lines[0].strip()[2:] else ""
        if name not in PYTHON_CELL_MAGICS:
            return None
        lines[0] = ""
    out = []
    continued = False
    for line in lines:
        magic = not continued and bool(_MAGIC_LINE.search(line))
        timed = _TIMED_LINE.match(line) if magic else None
        if timed and not line.rstrip().endswith("\\"):  # `%time expr`: expr is Python, read it
            out.append(timed.group(1) + timed.group(2))
        elif (
            magic
        ):  # `pass` keeps a block whose only statement is a magic valid (`for ...:\n    %time f()`)
            out.append(line[: len(line) - len(line.lstrip())] + "pass")
        else:
            out.append("" if continued else line)
        continued = (magic or continued) and line.rstrip().endswith("\\")
    return "\n".join(out)


def code_cells(text: str) -> list[Cell]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"line {exc.lineno}: not valid notebook JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise NotebookError("not a notebook: the top level is not an object")
    if "cells" in data:
        cells, key = data["cells"], "source"
    elif "worksheets" in data:  # nbformat 3
        cells = [c for ws in data.get("worksheets") or [] for c in (ws.get("cells") or [])]
        key = "input"
    else:
        raise NotebookError("not a notebook: no cells")
    if not isinstance(cells, list):  # iterating a string of cells would find none, in silence
        raise NotebookError(f"not a notebook: its cells are a {type(cells).__name__}, not a list")
    found = []
    for index, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = blank_magics(_text(cell.get(key)))
        if source is not None and source.strip():
            found.append(Cell(index, source))
    return found


@dataclass
class Joined:
    """The code cells that parse, one after another: they share one namespace, so they are read
    as one module, and what is found in it is mapped back to its cell."""

    source: str = ""
    origin: list[tuple[int, int]] = field(
        default_factory=list
    )  # per line: (cell, line in the cell)
    problems: list[str] = field(default_factory=list)  # why the other cells were left out
    newer: bool = (
        False  # a cell kept is of syntax newer than this Python's (`newer` said it parses)
    )

    def line_of(self, cell: int, line: int) -> int | None:
        """The line of the joined module that is `line` of `cell`."""
        try:
            return self.origin.index((cell, line)) + 1
        except ValueError:
            return None


def syntax_problem(exc: SyntaxError, source: str) -> str:
    """`line N: what is wrong` for a source that does not parse (the parser gives a NUL byte no line)."""
    if exc.lineno is None and "\0" in source:
        return f"line {source.count(chr(10), 0, source.index(chr(0))) + 1}: a NUL byte: not Python source"
    where = f"line {exc.lineno}: " if exc.lineno is not None else ""
    return f"{where}syntax error: {exc.msg}"


def join_cells(
    cells: list[Cell], newer: Callable[[str, SyntaxError], str | None] | None = None
) -> Joined:
    """`newer`: for a cell this Python rejects, None when a newer Python reads it (it is kept),
    else why it is left out (without it, the syntax error)."""
    joined = Joined()
    sources: list[str] = []
    for cell in cells:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                ast.parse(cell.source)
        except SyntaxError as exc:
            problem = (
                newer(cell.source, exc) if newer is not None else syntax_problem(exc, cell.source)
            )
            if problem is not None:
                joined.problems.append(f"cell {cell.index}, {problem}")
                continue
            joined.newer = True
        except (ValueError, RecursionError) as exc:
            joined.problems.append(f"cell {cell.index}: cannot parse: {exc}")
            continue
        lines = cell.source.splitlines() or [""]
        sources.append("\n".join(lines))
        joined.origin += [(cell.index, number) for number in range(1, len(lines) + 1)]
    joined.source = "\n".join(sources)
    return joined
