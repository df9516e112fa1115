"""A rewrite kept byte for byte outside the lines it changes.

libcst reads the text it is given but gives some of it back otherwise: it drops a byte-order
mark and a lone carriage return at the end. So the rewriting sees the source with every line
ending made "\\n" (as Python reads it: `\\r\\n`, `\\r` and `\\n` end a line, nothing else does), and
the result is laid back onto the original: the lines the rewrite kept are the original lines,
ending as they did; a changed line ends as the line it replaces did; a new line ends as most
lines of the source do. A missing final line ending stays missing.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_lines(text: str) -> list[str]:
    """The lines of `text` with their endings, split where Python ends a line (not at a form
    feed or a Unicode line separator, as `str.splitlines` does)."""
    return _LINE.findall(text)


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def plain(source: str) -> str:
    """`source` with every line ending made "\\n"."""
    return source.replace("\r\n", "\n").replace("\r", "\n") if "\r" in source else source


def relaid(source: str, rewritten: str) -> str:
    """`rewritten` (a rewrite of `plain(source)`) with the line endings of `source` put back."""
    if "\r" not in source:
        return rewritten
    old = split_lines(source)
    new = split_lines(rewritten)
    bodies = [line.rstrip("\r\n") for line in old]
    new_bodies = [line.rstrip("\n") for line in new]
    usual = Counter(e for e in map(_ending, old) if e).most_common(1)
    default = usual[0][0] if usual else "\n"
    head = 0  # the lines kept at both ends are paired first, as a diff pairs them
    while head < min(len(old), len(new)) and bodies[head] == new_bodies[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and bodies[-1 - tail] == new_bodies[-1 - tail]:
        tail += 1
    middle = SequenceMatcher(
        None, bodies[head : len(old) - tail], new_bodies[head : len(new) - tail], autojunk=False
    )
    pairs = [("equal", 0, head, 0, head)]
    pairs += [
        (tag, i1 + head, i2 + head, j1 + head, j2 + head)
        for tag, i1, i2, j1, j2 in middle.get_opcodes()
    ]
    pairs.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    out = []
    for tag, i1, i2, j1, j2 in pairs:
        for k in range(j2 - j1):
            line = new[j1 + k]
            if not line.endswith("\n"):  # the last line, without an ending as in the rewrite
                out.append(line)
                continue
            mate = old[i1 + k] if i1 + k < i2 and tag in ("equal", "replace") else ""
            out.append(new_bodies[j1 + k] + (_ending(mate) or default))
    return "".join(out)
