"""Notebooks, cell by cell: IPython lines masked so libcst can read a cell and put back
untouched after the rewrite, and each edited cell's `source` replaced in the raw JSON text, so
outputs, metadata and the layout of everything else stay byte for byte."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from auditor.scan.notebook import _MAGIC_LINE, _TIMED_LINE, PYTHON_CELL_MAGICS

_MARK = re.compile(r"# __auditor_magic_(\d+)__")
_TIMED_MARK = re.compile(r"  # __auditor_timed_(\d+)__(?=\r?\n?$)")


def _ending(line: str) -> tuple[str, str]:
    body = line.rstrip("\r\n")
    return body, line[len(body) :]


def mask(source: str) -> tuple[str, Callable[[str], str]] | None:
    """The cell as Python libcst reads (magic lines replaced by marked `pass` lines, `%time expr`
    by `expr` and a marker, as the scanner reads them: same lines, same columns), and the
    function that puts the IPython lines back into a rewritten text. None: not a Python cell."""
    lines = source.splitlines(keepends=True)
    originals: dict[int, str] = {}
    prefixes: dict[int, str] = {}
    out = []
    continued = False
    for i, line in enumerate(lines):
        body, end = _ending(line)
        if i == 0 and body.lstrip().startswith("%%"):
            name = body.strip()[2:].split(maxsplit=1)[0] if body.strip()[2:] else ""
            if name not in PYTHON_CELL_MAGICS:
                return None
            originals[i] = line
            out.append(f"# __auditor_magic_{i}__{end}")
            continued = False
            continue
        magic = not continued and bool(_MAGIC_LINE.search(body))
        timed = _TIMED_LINE.match(body) if magic else None
        indent = body[: len(body) - len(body.lstrip())]
        if timed and not body.rstrip().endswith("\\"):
            prefixes[i] = body[len(timed.group(1)) : len(body) - len(timed.group(2))]
            out.append(f"{timed.group(1)}{timed.group(2)}  # __auditor_timed_{i}__{end}")
        elif magic:
            originals[i] = line
            out.append(f"{indent}pass  # __auditor_magic_{i}__{end}")
        elif continued:
            originals[i] = line
            out.append(f"# __auditor_magic_{i}__{end}")
        else:
            out.append(line)
        continued = (magic or continued) and body.rstrip().endswith("\\")

    def unmask(text: str) -> str:
        restored = []
        for line in text.splitlines(keepends=True):
            mark = _MARK.search(line)
            timed = _TIMED_MARK.search(line)
            if mark and int(mark.group(1)) in originals:
                restored.append(originals[int(mark.group(1))])
            elif timed and int(timed.group(1)) in prefixes:
                plain = line[: timed.start()] + line[timed.end() :]
                body = plain.lstrip(" \t")
                restored.append(
                    plain[: len(plain) - len(body)] + prefixes[int(timed.group(1))] + body
                )
            else:
                restored.append(line)
        return "".join(restored)

    return "".join(out), unmask


def cell_sources(text: str) -> dict[int, tuple[list[Any], str]]:
    """Each cell's JSON path to its source and the source text, by 1-based index among all cells."""
    data = json.loads(text)
    found: dict[int, tuple[list[Any], str]] = {}
    if "cells" in data:
        places = [(["cells", i], c) for i, c in enumerate(data["cells"])]
        key = "source"
    else:  # nbformat 3
        places = [
            (["worksheets", w, "cells", i], c)
            for w, ws in enumerate(data.get("worksheets") or [])
            for i, c in enumerate(ws.get("cells") or [])
        ]
        key = "input"
    for index, (path, cell) in enumerate(places, start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code" and key in cell:
            source = cell[key]
            found[index] = (
                [*path, key],
                "".join(source) if isinstance(source, list) else str(source),
            )
    return found


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _span(text: str, path: list[Any]) -> tuple[int, int]:
    """Where in the raw JSON `text` the value at `path` starts and ends."""
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    for step in path:
        opening = text[at]
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        index = 0
        while True:
            if opening == "{":
                key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
                at = _SPACE.match(text, at).end() + 1  # type: ignore[union-attr]  # the colon
                at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
                hit = key == step
            else:
                hit = index == step
            if hit:
                break
            _, at = _DECODER.raw_decode(text, at)
            at = _SPACE.match(text, at).end() + 1  # type: ignore[union-attr]  # the comma
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            index += 1
    _, end = _DECODER.raw_decode(text, at)
    return at, end


def _encode(raw: str, source: str) -> str:
    """`source` as a JSON value laid out as `raw` (the old value) was: a list of lines with the
    same separators, or one string."""
    ascii_only = "\\u" in raw and not any(ord(c) > 127 for c in raw)

    def dump(s: str) -> str:
        return json.dumps(s, ensure_ascii=ascii_only)

    if not raw.startswith("["):
        return dump(source)
    items = []  # (start, end) of each old element
    at = _SPACE.match(raw, 1).end()  # type: ignore[union-attr]
    while raw[at] != "]":
        _, end = _DECODER.raw_decode(raw, at)
        items.append((at, end))
        at = _SPACE.match(raw, end).end()  # type: ignore[union-attr]
        if raw[at] == ",":
            at = _SPACE.match(raw, at + 1).end()  # type: ignore[union-attr]
    if not items:
        return "[" + ", ".join(dump(s) for s in source.splitlines(keepends=True)) + "]"
    kept = {
        json.loads(raw[start:end]): raw[start:end] for start, end in items
    }  # a line kept: its bytes too
    opening, closing = raw[: items[0][0]], raw[items[-1][1] :]
    separator = raw[items[0][1] : items[1][0]] if len(items) > 1 else "," + opening[1:]
    return (
        opening
        + separator.join(kept.get(s) or dump(s) for s in source.splitlines(keepends=True))
        + closing
    )


def replace_sources(text: str, edits: dict[int, str]) -> str:
    """The notebook's raw JSON with the given cells' sources replaced, nothing else touched."""
    places = cell_sources(text)
    spans = sorted(
        ((_span(text, places[cell][0]), new) for cell, new in edits.items()), reverse=True
    )
    for (start, end), new in spans:
        text = text[:start] + _encode(text[start:end], new) + text[end:]
    return text
