"""The rewrite as a unified diff: modules whole, notebooks per edited cell's source.

Lines end where a newline is, as for git and patch: a diff of a module, applied to the file,
gives the very bytes `--write` writes (carriage returns and a byte-order mark included)."""

from __future__ import annotations

import difflib
import re

from auditor.fix.model import FileRewrite, FixResult

_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def file_diff(file: FileRewrite) -> str:
    if not file.changed:
        return ""
    if not file.cells:
        return _diff(file.old_text, file.new_text, f"a/{file.path}", f"b/{file.path}")
    return "".join(
        _diff(old, new, f"a/{file.path} (cell {cell})", f"b/{file.path} (cell {cell})")
        for cell, old, new in file.cells
    )


def _diff(old: str, new: str, a: str, b: str) -> str:
    lines = difflib.unified_diff(_LINE.findall(old), _LINE.findall(new), a, b)
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def unified_diff(result: FixResult) -> str:
    return "".join(file_diff(f) for f in result.changed)
