"""Make probe outputs comparable across builds, machines and environments.

C++ warnings carry "(Triggered internally at ../aten/src/...cpp:NNNN.)" with line numbers that
differ between builds; reprs carry addresses; messages carry the paths of the environment that
produced them. Probes should print deterministic facts, and what remains is evened out here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_SITE = re.compile(r"(?:[A-Za-z]:)?[\\/][^\s'\"():]*?[\\/](?:site|dist)-packages[\\/]")
_SOURCE_LINE = re.compile(r"(\.(?:py|pyx|c|cc|cpp|cxx|h|hpp|cu)):\d+")
_TRAILING = re.compile(r"[ \t]+$", re.MULTILINE)


def normalise(text: str, roots: Iterable[str] = ()) -> str:
    for root in sorted((r for r in roots if r), key=len, reverse=True):
        text = text.replace(root, "<env>")
    text = _TRIGGERED.sub("", text)
    text = _ADDRESS.sub("0x…", text)
    text = _SITE.sub("<site-packages>/", text)
    text = _SOURCE_LINE.sub(r"\1:N", text)
    return _TRAILING.sub("", text).strip()
