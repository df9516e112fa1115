"""`pip freeze` output: `Name==version`, `Name===legacy`, `name @ url`, and `-e` lines whose
comment header (`# Editable install with no version control (name==1.0)`) holds the version."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from auditor.lockfiles.interface import LockFormat, canonical, parse_version, unique_pins
from auditor.lockfiles.pep508 import editable_pin, requirement_pin
from auditor.models import Lock, Pin

FORMAT = "pip-freeze"

_SIGNATURE = re.compile(
    r"^(## The following requirements were added by pip freeze:|# Editable .*install|"
    r"## !! Could not determine repository location)",
    re.MULTILINE,
)
_FREEZE_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*(===?\S+| @ \S+)|-e \S+)$")
_HEADER_VERSION = re.compile(r"\(([A-Za-z0-9][A-Za-z0-9._-]*)==([^)\s]+)\)")


def claims(path: Path, text: str) -> int:
    if "freeze" in path.name.lower() and path.suffix in (".txt", ""):
        return 3
    if _SIGNATURE.search(text):
        return 3
    lines = [ln.strip() for ln in text.splitlines()[:200] if ln.strip() and not ln.startswith("#")]
    return 1 if lines and all(_FREEZE_LINE.match(ln) for ln in lines) else 0


def parse(path: Path, text: str) -> Lock:
    pins: list[Pin] = []
    header: tuple[str, str] | None = None  # (name, version) from an editable's comment header
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            found = _HEADER_VERSION.search(line)
            if found and "Editable" in line:
                header = (found.group(1), found.group(2))
            continue
        if line.startswith(("-e ", "--editable")):
            target = line.split(None, 1)[1] if " " in line else line.split("=", 1)[-1]
            pin = editable_pin(target.strip(), path, number)
            if header:  # what pip found installed there
                version = parse_version(header[1], path, number)
                pin = replace(pin, name=canonical(header[0]), version=version)
            pins.append(pin)
            header = None
            continue
        if line.startswith("-"):
            continue  # index and find-links lines echoed by `pip freeze -r`
        pins.append(requirement_pin(line, path, number))
        header = None
    return Lock(path=str(path), format=FORMAT, pins=tuple(unique_pins((p, path) for p in pins)))


FREEZE = LockFormat(FORMAT, claims, parse)
