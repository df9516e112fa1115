"""`# auditor: ignore` and `# auditor: ignore[id, ...]`: read from comments only.

Text that looks like the marker inside a string (`"# auditor: ignore"`, a docstring) silences
nothing. Telling a comment from a string takes the tokenizer, which is slower than the parse
the scan is measured against, so only a source that holds the marker's text is tokenized.
An id that names no knowledge entry (a typo silences nothing) is reported with its line.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

TEXT = "auditor:"  # what a source must hold before it is tokenized
MARKER = re.compile(r"#\s*auditor:\s*ignore\b(?:\[([^\]]*)\])?")


@dataclass(frozen=True)
class Ignores:
    lines: dict[int, frozenset[str] | None] = field(default_factory=dict)  # None: every change
    unknown: tuple[tuple[int, str], ...] = ()  # (line, id) of ids no knowledge entry has

    def silences(self, line: int, change: str) -> bool:
        if line not in self.lines:
            return False
        ids = self.lines[line]
        return ids is None or change in ids


NONE = Ignores()


def read_ignores(source: str, known: frozenset[str] = frozenset()) -> Ignores:
    """The ignore comments of `source`, by line; with `known` (every knowledge id), the ids it
    does not hold."""
    if TEXT not in source:
        return NONE
    lines: dict[int, frozenset[str] | None] = {}
    unknown: list[tuple[int, str]] = []
    for line, comment in _comments(source):
        found = MARKER.search(comment)
        if found is None:
            continue
        if found.group(1) is None:
            lines[line] = None
            continue
        ids = frozenset(part.strip() for part in found.group(1).split(",") if part.strip())
        previous = lines.get(line, frozenset())
        lines[line] = None if previous is None else previous | ids
        unknown += [(line, i) for i in sorted(ids) if known and i not in known]
    return Ignores(lines, tuple(unknown))


def _comments(source: str) -> list[tuple[int, str]]:
    try:
        return [
            (token.start[0], token.string)
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT and TEXT in token.string
        ]
    except (
        tokenize.TokenError,
        SyntaxError,
    ):  # a source the parser rejects as well: skipped anyway
        return []
