"""Parsed and validated knowledge kept between runs.

Every command reads the knowledge base: a few hundred TOML files, each checked against the
schema, a third of a second before any work starts. The result depends on those files, the
schema and the code that reads them and nothing else, so it is kept (pickled) under a key that
hashes all of them: an edited entry, a new one or another version of auditor is a miss, never
a stale read. Only a base that loaded without a problem is kept, and kept bases unused for
`MAX_AGE_DAYS` are deleted (several may be in use: a checkout and an installed release). A
cache that cannot be read or written is passed over in silence: the files are read as if it
were not there.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path

from auditor import __version__
from auditor.cachefiles import MAX_AGE_DAYS, write_whole
from auditor.models import SpecChange

FORMAT = 1
SUBDIRECTORY = "knowledge"

Entries = tuple[SpecChange, ...]


def load_stored(root: Path, cache_dir: Path | None, load: Callable[[Path], Entries]) -> Entries:
    """`load(root)`, or what it gave last time for the same files and code."""
    if cache_dir is None:
        return load(root)
    try:
        stored = cache_dir / SUBDIRECTORY / f"{_key(root)}.pickle"
    except OSError:
        return load(root)  # the loader says what cannot be read
    try:
        kept = pickle.loads(stored.read_bytes())
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError, IndexError):
        kept = None  # missing, truncated, or written by other code: read the files
    if isinstance(kept, tuple) and all(isinstance(e, SpecChange) for e in kept):
        try:
            os.utime(stored)  # used today
        except OSError:
            pass
        return kept
    entries = load(root)
    _store(stored, entries)
    return entries


def _key(root: Path) -> str:
    digest = hashlib.sha256(f"{__version__}\0{FORMAT}\0{sys.version}\0".encode())
    here = Path(__file__).resolve().parent
    for code in (here / "loader.py", here / "entry.schema.json", here.parent / "models.py"):
        digest.update(code.read_bytes() + b"\0")
    for file in sorted(root.rglob("*.toml")):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def _store(path: Path, entries: Entries) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL))
        expired = time.time() - MAX_AGE_DAYS * 86400
        for old in path.parent.glob("*.pickle"):
            if old != path and old.stat().st_mtime < expired:
                old.unlink(missing_ok=True)
    except OSError:
        pass
