"""`conda list --export` (`name=version=build` lines; `pypi_0` builds came from pip) and
`@EXPLICIT` files (`conda list --explicit`, conda-lock's `conda-<platform>.lock`): one package
URL a line, `<channel>/<subdir>/<name>-<version>-<build>.conda`."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from auditor.errors import LockfileError
from auditor.lockfiles.conda import torch_of_metapackages, version_pin
from auditor.lockfiles.interface import LockFormat
from auditor.models import Lock, Pin

EXPORT = "conda-list-export"
EXPLICIT = "conda-explicit"

_PLATFORM = re.compile(r"^#\s*platform:\s*(\S+)", re.MULTILINE)
_EXPORT_LINE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-]*)=([^=\s]+)=(\S+)$")
_ARCHIVE = re.compile(r"^(?P<name>.+)-(?P<version>[^-]+)-(?P<build>[^-]+?)(\.tar\.bz2|\.conda)$")


def _platform(text: str) -> str | None:
    found = _PLATFORM.search(text[:4096])
    return found.group(1) if found else None


def claims_export(path: Path, text: str) -> int:
    if "@EXPLICIT" in text[:8192]:
        return 0
    lines = [ln.strip() for ln in text.splitlines()[:200] if ln.strip() and not ln.startswith("#")]
    # `name=version=build` is no valid requirement, so such a file is this format whatever its
    # name: `conda list --export > requirements.txt` is common.
    return 3 if lines and all(_EXPORT_LINE.match(ln) for ln in lines) else 0


def claims_explicit(path: Path, text: str) -> int:
    return 3 if re.search(r"^@EXPLICIT\s*$", text[:8192], re.MULTILINE) else 0


def parse_export(path: Path, text: str) -> Lock:
    platform = _platform(text)
    pins: list[Pin] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        found = _EXPORT_LINE.match(line)
        if not found:
            raise LockfileError("expected name=version=build (the line is not shown)", path, number)
        name, version, build = found.groups()
        source = "pypi" if build.startswith("pypi_") else None
        pins.append(
            version_pin(
                name,
                version,
                line=number,
                build=None if source else build,
                source=source,
                platform=platform,
            )
        )
    return _lock(path, EXPORT, pins)


def parse_explicit(path: Path, text: str) -> Lock:
    platform = _platform(text)
    pins: list[Pin] = []
    seen_marker = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line == "@EXPLICIT":
            seen_marker = True
            continue
        if not seen_marker:
            raise LockfileError("expected @EXPLICIT before the first package", path, number)
        pins.append(explicit_pin(line, path, number, platform))
    return _lock(path, EXPLICIT, pins)


def explicit_pin(url: str, path: Path, line: int | None, platform: str | None) -> Pin:
    parts = urlsplit(url)
    segments = unquote(parts.path).rstrip("/").split("/")
    found = _ARCHIVE.match(segments[-1])
    if not found:
        raise LockfileError(f"not a conda package URL: {url!r}", path, line)
    subdir = segments[-2] if len(segments) >= 2 else None
    channel = "/".join(segments[:-2]).lstrip("/") if len(segments) > 2 else None
    if subdir and subdir != "noarch":
        platform = subdir
    return version_pin(
        found.group("name"),
        found.group("version"),
        line=line,
        build=found.group("build"),
        source=channel.rsplit("/", 1)[-1] if channel else None,
        platform=platform,
    )


def _lock(path: Path, fmt: str, pins: list[Pin]) -> Lock:
    pins = torch_of_metapackages(pins)
    python = next((str(p.version) for p in pins if p.name == "python" and p.version), None)
    return Lock(path=str(path), format=fmt, pins=tuple(pins), python=python)


CONDA_LIST_EXPORT = LockFormat(EXPORT, claims_export, parse_export)
CONDA_EXPLICIT = LockFormat(EXPLICIT, claims_explicit, parse_explicit)
