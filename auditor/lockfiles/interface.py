"""What every lock format module provides, and the helpers they share."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from packaging.markers import InvalidMarker, Marker
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from auditor import tomlread
from auditor.errors import LockfileError
from auditor.models import Lock, Pin


@dataclass(frozen=True, slots=True)
class LockFormat:
    """A lock format: its name, how sure it is that a file is its own, and its parser.

    `claims(path, text)` returns 0 (not mine), 1 (the content looks like mine), 2 (the file
    name is mine) or 3 (name or content is unmistakably mine); detection takes the highest.
    """

    name: str
    claims: Callable[[Path, str], int]
    parse: Callable[[Path, str], Lock]


def parse_version(text: str, path: Path | str, line: int | None = None) -> Version:
    try:
        return Version(text.strip())
    except InvalidVersion as exc:
        raise LockfileError(f"invalid version {text.strip()!r}", path, line) from exc


def canonical(name: str) -> str:
    return canonicalize_name(name)


def normal_marker(text: str | None) -> str | None:
    """A marker as packaging writes it (`sys_platform == "linux"`), so that the same environment
    reads the same in every format; a marker packaging cannot read is kept as written."""
    if not text:
        return None
    try:
        return str(Marker(text))
    except InvalidMarker:
        return text


def in_extra(pin: Pin, extra: str, condition: str | None = None) -> Pin:
    """A pin of an extra holds only where the extra is asked for, as its `Requires-Dist` says;
    `condition`: a marker of its own (setuptools' `"extra:marker"` keys; `""` for no extra)."""
    parts = [f"({m})" for m in (pin.marker, condition) if m] + (
        [f'extra == "{extra}"'] if extra else []
    )
    return replace(pin, marker=normal_marker(" and ".join(parts)) if parts else None)


# --- one pin per package and environment --------------------------------------------------------


def _pins_one(pin: Pin) -> bool:
    """A version, a legacy `===` version or a local folder: a pin, not a range."""
    return pin.version is not None or pin.local or (pin.specifier or "").startswith("===")


def _shown(pin: Pin) -> str:
    if pin.version is not None:
        return str(pin.version)
    return pin.specifier or pin.source or "any version"


# the packages a torch bump moves together, torch first; their duplicate pins are errors
TORCH_FAMILY = ("torch", "torchvision", "torchaudio", "torchtext", "torchdata", "triton")
# the family's packages whose API user code calls, so that their moves need reviewed knowledge;
# triton moves with torch and users reach it through torch.compile
REVIEWED_FAMILY = tuple(name for name in TORCH_FAMILY if name != "triton")


def unique_pins(found: Iterable[tuple[Pin, Path]]) -> list[Pin]:
    """One pin per package and environment (marker, platform), each pin with the file it was
    read from. The same requirement twice is read once, a range beside a pin yields to the pin
    and two ranges combine, as pip reads them. Two different pins of a torch-family package for
    one environment are an error naming both lines (the transition would be a guess); of any
    other package the first is kept, as in a build-requirements file that pins a backend once per
    build."""
    kept: dict[tuple[object, ...], tuple[Pin, Path]] = {}
    for pin, path in found:
        key = (pin.name or pin.source, pin.marker, pin.platform)
        if key not in kept:
            kept[key] = (pin, path)
            continue
        first, first_path = kept[key]
        if _pins_one(first) and _pins_one(pin):
            if pin.name not in TORCH_FAMILY:  # build requirements list a backend once per build
                continue
            if (first.version, first.specifier, first.source) != (
                pin.version,
                pin.specifier,
                pin.source,
            ):
                where = (
                    f"line {first.line}"
                    if first_path == path
                    else f"{first_path.name}:{first.line}"
                )
                raise LockfileError(
                    f"{pin.name or pin.source} is pinned twice for one environment: "
                    f"{_shown(first)} at {where} and {_shown(pin)} here",
                    path,
                    pin.line,
                )
        elif _pins_one(pin):
            kept[key] = (pin, path)
        elif not _pins_one(first) and pin.specifier:
            kept[key] = (
                replace(first, specifier=_both(first.specifier, pin.specifier)),
                first_path,
            )
    return [pin for pin, _ in kept.values()]


def _both(one: str | None, other: str) -> str:
    try:
        return str(SpecifierSet(one or "") & SpecifierSet(other))
    except InvalidSpecifier:
        return f"{one},{other}" if one else other


# --- documents ---------------------------------------------------------------------------------

MAX_BYTES = 64 * 1024 * 1024  # far above any real lock; a bigger file is a mistake, not a lock
_CONFLICT = re.compile(rb"^(<{7}|>{7})( |$)", re.MULTILINE)


def read_text(path: Path) -> str:
    """A lock file's text: UTF-8 with or without a byte order mark, or UTF-16 with one
    (PowerShell's `pip freeze > file`); binary, oversized and merge-conflicted files are errors."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise LockfileError(
                f"file is larger than {MAX_BYTES // 2**20} MB, not a lock file", path
            )
        data = path.read_bytes()
    except OSError as exc:
        raise LockfileError(f"cannot read: {exc.strerror or exc}", path) from exc
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise LockfileError("not UTF-16 text, though it starts as UTF-16 does", path) from exc
    if b"\0" in data:
        raise LockfileError("binary file, not a lock file", path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LockfileError("not UTF-8 text", path, line) from exc
    conflict = _CONFLICT.search(data)
    if conflict:
        line = data[: conflict.start()].count(b"\n") + 1
        raise LockfileError("unresolved merge conflict marker", path, line)
    return text


def nothing_in(path: Path, fmt: str) -> LockfileError:
    """A document with no content at all (comments only, `null`): a truncated or unmade lock."""
    return LockfileError(f"no content: a {fmt} lists its packages, this one has none", path, 1)


def load_toml(path: Path, text: str) -> dict[str, Any]:
    """A TOML lock, bounded before parsing (see `auditor.tomlread`)."""
    return tomlread.loads(text, path, LockfileError)


def load_json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LockfileError(f"invalid JSON: {exc.msg}", path, exc.lineno) from exc
    except RecursionError as exc:
        raise LockfileError("invalid JSON: nested too deeply", path) from exc
    except ValueError as exc:  # a number of more than 4,300 digits
        raise LockfileError(f"invalid JSON: {str(exc).split(';')[0]}", path) from exc


def header_lines(text: str, header: str) -> list[int]:
    """1-based line numbers of each `[[package]]`-style header, in order."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if line.strip() == header]


class Fields:
    """Typed access to one table of a parsed document; errors name the file, line and key."""

    def __init__(self, data: object, where: str, path: Path, line: int | None = None):
        if not isinstance(data, dict):
            raise LockfileError(
                f"{where}: expected a table, found {type(data).__name__}", path, line
            )
        self.data, self.where, self.path, self.line = data, where, path, line

    def fail(self, key: str, what: str) -> LockfileError:
        return LockfileError(f"{self.where}.{key}: {what}", self.path, self.line)

    def string(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key, default)
        if value is not None and not isinstance(value, str):
            raise self.fail(key, f"expected a string, found {type(value).__name__}")
        return value

    def required(self, key: str) -> str:
        value = self.string(key)
        if not value:
            raise self.fail(key, "missing")
        return value

    def array(self, key: str) -> list[Any]:
        value = self.data.get(key, [])
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list, found {type(value).__name__}")
        return value

    def table(self, key: str) -> dict[str, Any]:
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, found {type(value).__name__}")
        return value

    def version(self, key: str) -> Version | None:
        text = self.string(key)
        return None if text is None else parse_version(text, self.path, self.line)


# --- file names in URLs ------------------------------------------------------------------------

PYPI_INDEXES = frozenset(
    {"https://pypi.org/simple", "https://pypi.org/simple/", "https://pypi.python.org/simple"}
)


def index_source(url: str | None) -> str | None:
    """A registry URL as a pin's source; PyPI is the default and is left out."""
    return (
        None
        if url is None or url.rstrip("/") + "/" in {u.rstrip("/") + "/" for u in PYPI_INDEXES}
        else url
    )


def archive_version(name: str, location: str) -> Version | None:
    """The version a wheel or sdist's file name states for package `name`, if it is one."""
    found = distribution_from_url(location.replace("\\", "/"))
    return found[1] if found and canonical(found[0]) == canonical(name) else None


def distribution_from_url(url: str) -> tuple[str, Version] | None:
    """Name and version from a wheel or sdist URL (`torch-2.0.0%2Bcu118-...whl`), if it is one."""
    filename = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
            return str(name), version
        if filename.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(filename)
            return str(name), version
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    return None
