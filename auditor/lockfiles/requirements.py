"""pip freeze output and pinned requirements files (pip-compile, `uv pip compile`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from auditor.errors import LockfileError
from auditor.lockfiles.interface import LockFormat, canonical, parse_version
from auditor.models import Lock, Pin

_NAME_RE = re.compile(r"(^|[-_.])(requirements|constraints)[^/]*\.(txt|in)$|freeze[^/]*\.txt$", re.I)
_PIN_LINE = re.compile(r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?\s*(===?|~=|>=|<=|!=|<|>|@)")


def _claims(path: Path, text: str) -> int:
    if _NAME_RE.search(path.name):
        return 2
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if lines and all(_PIN_LINE.match(ln) or ln.lstrip().startswith("-") for ln in lines[:50]):
        return 1
    return 0


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Join backslash continuations, drop comments; yield (first physical line, content)."""
    buffer, start = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        if not buffer:
            start = number
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        buffer += line
        content = re.sub(r"(^|\s)#.*$", "", buffer).strip()
        buffer = ""
        if content:
            yield start, content
    if buffer.strip():
        yield start, buffer.strip()


def _parse(path: Path, text: str) -> Lock:
    pins: list[Pin] = []
    for number, content in _logical_lines(text):
        if content.startswith("-"):
            continue  # options (-i, --hash, -e ...): deepened in the lock-format issue
        content = re.split(r"\s--hash[=\s]", content)[0].strip()
        try:
            req = Requirement(content)
        except InvalidRequirement as exc:
            raise LockfileError(f"not a requirement: {content!r} ({exc})", path, number) from exc
        exact = [s for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
        version = parse_version(exact[0].version, path, number) if len(exact) == 1 else None
        pins.append(
            Pin(
                name=canonical(req.name),
                version=version,
                marker=str(req.marker) if req.marker else None,
                source=req.url,
                line=number,
                specifier=None if version else (str(req.specifier) or None),
            )
        )
    return Lock(path=str(path), format="requirements.txt", pins=tuple(pins))


REQUIREMENTS = LockFormat("requirements.txt", _claims, _parse)
