"""One release's harvest kept as small gzipped JSON: `<cache dir>/<package>/<version>.json.gz`.

The wheels are never kept. A cache file from another format or one that cannot be read is
harvested again (the caller notes it)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from auditor.cachefiles import write_whole
from auditor.harvest.model import Param, Release, Site, Symbol

FORMAT = 7  # raise when the harvest reads wheels differently: old cache files are then ignored


def path_for(directory: Path, package: str, version: str) -> Path:
    return directory / package / f"{version}.json.gz"


def to_data(r: Release) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "package": r.package,
        "version": r.version,
        "wheel": r.wheel,
        "stubs": list(r.stubs),
        "notes": list(r.notes),
        "symbols": [
            [
                s.name,
                s.kind,
                s.file,
                s.line,
                s.source,
                s.origin,
                [[p.name, p.kind, p.default] for p in s.params],
                list(s.bases),
                list(s.fields),
                [list(r) for r in s.resolved],
                s.dynamic,
            ]
            for s in r.symbols
        ],
        "sites": [
            [s.symbol, s.kind, s.category, s.message, s.guard, s.file, s.line, s.via, s.conditional]
            for s in r.sites
        ],
    }


def from_data(d: dict[str, Any]) -> Release:
    return Release(
        d["package"],
        d["version"],
        d["wheel"],
        tuple(
            Symbol(
                n,
                k,
                f,
                ln,
                src,
                tuple(Param(*p) for p in params),
                origin,
                tuple(bases),
                tuple(fields),
                tuple((r[0], r[1], r[2]) for r in resolved),
                dynamic,
            )
            for n, k, f, ln, src, origin, params, bases, fields, resolved, dynamic in d["symbols"]
        ),
        tuple(Site(*s) for s in d["sites"]),
        tuple(d["stubs"]),
        tuple(d["notes"]),
    )


def load(directory: Path, package: str, version: str) -> Release | None:
    """The kept harvest, or None when there is none; raises ValueError when it is unusable."""
    path = path_for(directory, package, version)
    if not path.exists():
        return None
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{path}: unreadable ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: written by another harvest format")
    try:
        return from_data(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: malformed ({exc})") from exc


def store(directory: Path, release: Release) -> None:
    """Raises OSError when the file cannot be written."""
    path = path_for(directory, release.package, release.version)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(to_data(release), separators=(",", ":"), sort_keys=True).encode()
    write_whole(path, gzip.compress(data, mtime=0))
