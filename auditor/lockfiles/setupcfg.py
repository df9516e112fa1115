"""A `setup.cfg`'s dependencies: not a lock, but a declaration, read like a pyproject.toml's (its
exact pins as pins, its ranges for `--resolve`): `[options] install_requires` and each key of
`[options.extras_require]`, one requirement per line. A `file:` directive is not followed: the
file it names is read as a requirements file where it changes."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

from auditor.errors import LockfileError
from auditor.lockfiles.interface import LockFormat, in_extra, unique_pins
from auditor.lockfiles.pep508 import requirement_pin
from auditor.models import Lock, Pin

FORMAT = "setup.cfg"


def claims(path: Path, text: str) -> int:
    # a declaration, not a lock: claimed by name only, and weakly (as pyproject.toml is)
    return 1 if path.name == FORMAT else 0


def parse(path: Path, text: str) -> Lock:
    config = configparser.ConfigParser(
        interpolation=None, comment_prefixes=("#", ";"), inline_comment_prefixes=None
    )
    try:
        config.read_string(text, str(path))
    except configparser.Error as exc:
        line = getattr(exc, "lineno", None)
        raise LockfileError(f"not a setup.cfg: {str(exc).splitlines()[0]}", path, line) from exc
    lines = text.splitlines()
    pins: list[Pin] = []
    if config.has_option("options", "install_requires"):
        pins += _pins(config.get("options", "install_requires"), "options", "main", lines, path)
    if config.has_section("options.extras_require"):
        for extra, value in config.items("options.extras_require"):
            pins += [
                in_extra(p, extra)
                for p in _pins(value, "options.extras_require", extra, lines, path)
            ]
    kept = unique_pins((p, path) for p in pins)
    return Lock(path=str(path), format=FORMAT, pins=tuple(sorted(kept, key=lambda p: p.line or 0)))


def _pins(value: str, section: str, group: str, lines: list[str], path: Path) -> list[Pin]:
    out = []
    start = _section_line(lines, section)
    for raw in value.splitlines():
        text = raw.split(" #", 1)[0].strip()
        if not text:
            continue
        if text.startswith("file:"):
            raise LockfileError(
                f"[{section}] {text}: the requirements are in another file; not read here",
                path,
                _line_of(lines, text, start),
            )
        out.append(requirement_pin(text, path, _line_of(lines, text, start), groups=(group,)))
    return out


def _section_line(lines: list[str], section: str) -> int:
    pattern = re.compile(rf"^\s*\[\s*{re.escape(section)}\s*\]")
    return next((n for n, line in enumerate(lines) if pattern.match(line)), 0)


def _line_of(lines: list[str], text: str, start: int) -> int | None:
    return next((n + 1 for n in range(start, len(lines)) if text in lines[n]), None)


SETUP_CFG = LockFormat(FORMAT, claims, parse)
