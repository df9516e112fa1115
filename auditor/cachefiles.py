"""Files the tool keeps in its cache directory: written whole, deleted once long unused."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

MAX_AGE_DAYS = 30  # a kept result (scan, knowledge base) unused this long is deleted


def default_cache_dir() -> Path:
    """The one cache root of scans, probes, the knowledge base and harvests, unless told another."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("auditor", appauthor=False))


def write_whole(path: Path, data: bytes) -> None:
    """`path` holds all of `data` or what it held before: written beside it, then renamed over
    it, also when two runs write it at once. Raises OSError; leaves no partial file behind."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
