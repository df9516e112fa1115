"""poetry.lock, every lock-version: 1.0 (no version field, hashes in `[metadata.files]`), 1.1
(`category`), 2.0 (per-package `files`), 2.1 (per-package `groups` and `markers`)."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles.interface import (
    Fields,
    LockFormat,
    canonical,
    header_lines,
    index_source,
    load_toml,
    normal_marker,
    nothing_in,
)
from auditor.models import Lock, Pin

FORMAT = "poetry.lock"
LOCK_VERSIONS = ("1.0", "1.1", "2.0", "2.1")


def claims(path: Path, text: str) -> int:
    if path.name == "poetry.lock":
        return 3
    if (
        "[[package]]" in text
        and re.search(r"^\[metadata\]", text, re.MULTILINE)
        and "content-hash" in text
    ):
        return 1
    return 0


def parse(path: Path, text: str) -> Lock:
    document = Fields(load_toml(path, text), "poetry.lock", path)
    if not document.data:
        raise nothing_in(path, FORMAT)
    metadata = Fields(document.table("metadata"), "metadata", path)
    lock_version = metadata.string("lock-version", "1.0") or "1.0"
    if lock_version.split(".")[0] not in ("1", "2"):
        raise LockfileError(
            f"unsupported poetry lock-version {lock_version!r} (known: {', '.join(LOCK_VERSIONS)})",
            path,
        )
    lines = header_lines(text, "[[package]]")
    pins = []
    for index, raw in enumerate(document.array("package")):
        line = lines[index] if index < len(lines) else None
        pins.append(_pin(Fields(raw, f"package[{index}]", path, line)))
    return Lock(
        path=str(path),
        format=FORMAT,
        pins=tuple(pins),
        python=metadata.string("python-versions"),
        markers=Version(lock_version) >= Version("2.1"),
    )


def _pin(package: Fields) -> Pin:
    groups = tuple(package.array("groups")) or (
        (package.string("category"),) if package.string("category") else ()
    )
    if package.data.get("optional") is True:
        groups = (*groups, "optional")
    if package.data.get("develop") is True:
        groups = (*groups, "editable")
    kind = Fields(package.table("source"), "source", package.path).string("type")
    return Pin(
        name=canonical(package.required("name")),
        # a folder's version is its working tree's, which pins nothing; a local file's stays
        version=None if kind == "directory" else package.version("version"),
        marker=normal_marker(_marker(package)),
        source=_source(package),
        groups=tuple(str(g) for g in groups),
        line=package.line,
        local=kind in ("directory", "file"),
        wheels=tuple(
            str(f["file"])
            for f in package.array("files")
            if isinstance(f, dict) and str(f.get("file", "")).endswith(".whl")
        ),
        requires=tuple(canonical(name) for name in package.table("dependencies")),
    )


def _marker(package: Fields) -> str | None:
    """2.1 writes `markers` as one string, or per group as a table; the pin holds where any holds."""
    raw = package.data.get("markers")
    if raw is None or isinstance(raw, str):
        return raw
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise package.fail("markers", "expected a string or a table of strings")
    distinct = sorted(set(raw.values()))
    if len(raw) < len(package.array("groups")):
        return None  # some group takes it without a marker
    return distinct[0] if len(distinct) == 1 else " or ".join(f"({m})" for m in distinct)


def _source(package: Fields) -> str | None:
    source = Fields(package.table("source"), f"{package.where}.source", package.path, package.line)
    kind, url = source.string("type"), source.string("url")
    if kind is None:
        return None
    if kind == "git":
        ref = source.string("resolved_reference") or source.string("reference")
        return f"git+{url}" + (f"@{ref}" if ref else "")
    if kind in ("legacy", "explicit", "supplemental", "primary"):
        return index_source(url)
    return url


POETRY = LockFormat(FORMAT, claims, parse)
