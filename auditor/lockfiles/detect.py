"""Read a lock file: find its format by name and content, then parse it."""

from __future__ import annotations

from pathlib import Path

from auditor.errors import LockfileError
from auditor.lockfiles.interface import LockFormat
from auditor.lockfiles.requirements import REQUIREMENTS
from auditor.models import Lock

FORMATS: tuple[LockFormat, ...] = (REQUIREMENTS,)


def format_names() -> list[str]:
    return [f.name for f in FORMATS]


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LockfileError(f"cannot read: {exc.strerror or exc}", path) from exc
    if b"\0" in data[:8192]:
        raise LockfileError("binary file, not a lock file", path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LockfileError("not UTF-8 text", path, line) from exc


def detect(path: Path, text: str) -> LockFormat:
    scored = [(fmt.claims(path, text), fmt) for fmt in FORMATS]
    score, best = max(scored, key=lambda pair: pair[0])
    if score == 0:
        raise LockfileError(f"unknown lock format (known: {', '.join(format_names())})", path)
    return best


def read_lock(path: str | Path, format_name: str | None = None) -> Lock:
    path = Path(path)
    text = read_text(path)
    if format_name is not None:
        fmt = next((f for f in FORMATS if f.name == format_name), None)
        if fmt is None:
            raise LockfileError(f"unknown format {format_name!r} (known: {', '.join(format_names())})")
    else:
        fmt = detect(path, text)
    return fmt.parse(path, text)
