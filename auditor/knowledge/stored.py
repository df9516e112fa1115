"""Parsed and validated knowledge kept between runs.

Every command reads the knowledge base: a few hundred TOML files, each checked against the
schema, a third of a second before any work starts. The result depends on those files, the
schema, the code that reads them and the `packaging` that parses their versions and nothing
else, so it is kept under a key that hashes all of them: an edited entry, a new one or another
version of auditor is a miss, never a stale read.

What is kept is JSON: the checked data of the files, from which the typed entries are built
again (a few milliseconds). Never a pickle: a cache directory shared between CI jobs must not
be able to run code. Whoever can write the cache directory can still change what it says, as
with any cache; `--no-cache` reads the files alone.

Only a base that loaded without a problem is kept, and kept bases unused for `MAX_AGE_DAYS` are
deleted (several may be in use: a checkout and an installed release). A kept base that cannot
be read, is damaged, or cannot be written is reported once, as a note, and the files are read.

A built wheel carries its base already checked (`ship`, run by the build: `hatch_build.py`),
as `SHIPPED` in its knowledge directory, under a key that hashes the files and the code that
reads them; it is used while they are the same (an edited entry in the directory is read from
its file), so that even the first run, or one with `--no-cache`, reads no TOML.

The changes generated from the harvest (`--harvested`) are kept the same way, in a file of their
own (`load_generated`; GENERATED in a wheel): their candidates, from 4.7 MB of TOML that took
0.7 s to read and sort each run, are 2.5 MB of JSON that a run without `--harvested` never reads.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import packaging

from auditor import __version__
from auditor.cachefiles import MAX_AGE_DAYS, write_whole
from auditor.knowledge.entry import SpecChange
from auditor.knowledge.loader import (
    HARVEST_DIRECTORY,
    Knowledge,
    knowledge_files,
    read_knowledge,
    rebuild,
    with_unloaded,
)

if TYPE_CHECKING:
    from auditor.harvest.model import Candidate

FORMAT = 3  # 1 was a pickle; 3 counts the generated changes (`unloaded`)
SUBDIRECTORY = "knowledge"
SUFFIX = ".json"
SHIPPED = "_kept.json"  # in a built wheel's knowledge directory: {"key": ..., "base": Knowledge.raw}
GENERATED = "_kept_generated.json"  # beside it: {"key": ..., "base": the generated changes' candidates}


_loaded: dict[tuple[Callable[[Path], Any], bytes], Any] = {}  # read without a kept copy, per files


def load_stored(
    root: Path, cache_dir: Path | None, load: Callable[[Path], Knowledge]
) -> tuple[Knowledge, tuple[str, ...]]:
    """`load(root)`, or what it gave last time for the same files and code; and a note when a
    kept base could not be used."""
    return _kept(root, cache_dir, load, _BASE)


def load_generated(
    root: Path, cache_dir: Path | None, make: Callable[[Path], Any], data: Callable[[Any], Any],
    value: Callable[[Any], Any],
) -> tuple[Any, tuple[str, ...]]:
    """`make(root)` (`--harvested`: the generated changes' candidates), or what it gave last time
    for the same files and code, kept as `data(made)` and read back with `value(data)`: a wheel
    ships them made (GENERATED), a cache keeps them, so that the harvest's TOML is read only when
    it changes."""
    return _kept(root, cache_dir, make, _Kind(GENERATED, ".generated" + SUFFIX, data, value, "generated changes"))


@dataclass(frozen=True)
class _Kind:
    """What is kept: its file in a wheel, its name's end in a cache, the plain data of a value and
    the value again ("what" names it in a note)."""

    shipped: str
    suffix: str
    data: Callable[[Any], Any]
    value: Callable[[Any], Any]
    what: str


_BASE = _Kind(SHIPPED, SUFFIX, lambda k: k.raw, rebuild, "knowledge base")


def _kept(root: Path, cache_dir: Path | None, load: Callable[[Path], Any], kind: _Kind) -> tuple[Any, tuple[str, ...]]:
    shipped = _read_shipped(root, kind.shipped)
    try:
        files = _digest(root)
    except OSError:
        return load(root), ()  # the loader says what cannot be read
    if shipped is None and cache_dir is None:  # nothing kept: read once per process (a test suite reads it often)
        memo = _loaded.get((load, files))
        if memo is None:
            memo = _loaded[(load, files)] = load(root)
        return memo, ()
    value = _shipped(shipped, files, kind) if shipped is not None else None
    if value is not None:
        return value, ()
    if cache_dir is None:
        return load(root), ()
    stored = cache_dir / SUBDIRECTORY / f"{_name(files)}{kind.suffix}"
    note = None
    try:
        kept = kind.value(json.loads(stored.read_bytes()))
    except (FileNotFoundError, NotADirectoryError):
        pass  # not kept yet; a cache directory that is not one is said when keeping fails
    except OSError as exc:
        note = f"the kept {kind.what} {stored} cannot be read ({exc.strerror or exc}): read the knowledge files instead"
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        note = f"the kept {kind.what} {stored} is damaged ({type(exc).__name__}): read the knowledge files and kept it again"
    else:
        try:
            os.utime(stored)  # used today
        except OSError:
            pass
        return kept, ()
    value = load(root)
    problem = _store(stored, kind.data(value))
    notes = [note] if note else []
    if problem:
        notes.append(f"cannot keep the {kind.what} in {stored.parent} ({problem}): every run reads the files")
    return value, tuple(notes[:1])  # say it once


def read_base(root: Path) -> Knowledge:
    """The knowledge under `root`, read and checked, with the changes its harvest generates
    counted (`Knowledge.unloaded`): what is kept."""
    # imported here, as each harvest import below: the harvester takes a thirtieth of a second
    # to import, and a run with the kept knowledge never needs it
    from auditor.harvest.coverage import unloaded

    knowledge = read_knowledge(root)
    return with_unloaded(knowledge, unloaded(root, knowledge.entries))


def ship(root: Path, into: Path) -> None:
    """Read and check the knowledge under `root` (KnowledgeError when it is not sound) and write
    it to `into`, keyed, for `load_stored` to use instead of the files while they are the same;
    and the generated changes' candidates beside it (GENERATED), for `load_generated`."""
    from auditor.harvest.coverage import changes_of, counted, generated_candidates
    from auditor.harvest.model import candidate_data

    key = _digest(root).hex()
    knowledge = read_knowledge(root)
    candidates = generated_candidates(root, knowledge.entries)  # the harvest read once, for both files
    knowledge = with_unloaded(knowledge, counted(changes_of(candidates)))  # what `read_base` gives
    generated = [candidate_data(c) for c in candidates]
    into.write_bytes(json.dumps({"key": key, "base": knowledge.raw}, separators=(",", ":")).encode())
    into.with_name(GENERATED).write_bytes(json.dumps({"key": key, "base": generated}, separators=(",", ":")).encode())


def kept_changes(knowledge: Path, cache_dir: Path | None) -> tuple[tuple[SpecChange, ...], tuple[str, ...]]:
    """`generated_changes` of the knowledge under `knowledge`, from the candidates a wheel ships
    made or a cache keeps while its files are the same (the harvest's TOML is read only when they
    change); and a note when a kept copy could not be used."""
    from auditor.harvest.coverage import changes_of
    from auditor.harvest.model import candidate_data, candidate_from

    kept, notes = load_generated(
        knowledge, cache_dir, _generated_of,
        data=lambda candidates: [candidate_data(c) for c in candidates],
        value=lambda data: tuple(candidate_from(d) for d in data),
    )
    return changes_of(kept), notes


def _generated_of(knowledge: Path) -> tuple[Candidate, ...]:
    from auditor.harvest.coverage import generated_candidates

    base, _ = load_stored(knowledge, None, read_base)  # the curated entries that cover candidates
    return generated_candidates(knowledge, base.entries)


def _read_shipped(root: Path, name: str) -> bytes | None:
    try:
        return (root / name).read_bytes()
    except OSError:
        return None  # none shipped: a checkout


def _shipped(shipped: bytes, files: bytes, kind: _Kind) -> Any:
    """What was shipped, if it is what these files make (`_digest`) and sound; else None."""
    try:
        data = json.loads(shipped)
        return kind.value(data["base"]) if data["key"] == files.hex() else None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None  # not the one these files make, or damaged: they are read


def _digest(root: Path) -> bytes:
    """The knowledge files and the code that reads and checks them."""
    digest = hashlib.sha256(f"{FORMAT}\0".encode())
    here = Path(__file__).resolve().parent
    code = [here / "loader.py", here / "horizon.py", here / "entry.schema.json", here / "entry.py",
            here.parent / "fix" / "spec.py", here / "conditions.py"]
    code += sorted((here.parent / "harvest").glob("*.py"))  # what counts the generated changes
    for file in code:
        digest.update(file.read_bytes() + b"\0")
    harvest = sorted(f for f in root.glob(f"*/{HARVEST_DIRECTORY}/**/*") if f.is_file())
    for file in [*knowledge_files(root), *harvest]:
        digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.digest()


def _key(root: Path) -> str:
    """The name of the base kept for the files under `root`."""
    return _name(_digest(root))


def _name(files: bytes) -> str:
    """A kept base's name: the files' digest (`_digest`), and what the run reading them is."""
    return hashlib.sha256(
        f"{__version__}\0{sys.version}\0{packaging.__version__}\0".encode() + files
    ).hexdigest()


def _store(path: Path, data: Any) -> str | None:
    """Keep `data` (plain JSON values) at `path`; what went wrong, or None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, json.dumps(data, separators=(",", ":")).encode())
    except (OSError, ValueError) as exc:  # ValueError: a value JSON cannot hold
        return getattr(exc, "strerror", None) or str(exc)
    expired = time.time() - MAX_AGE_DAYS * 86400
    try:
        for old in path.parent.iterdir():
            if old.suffix == ".pickle" or (old != path and old.suffix == SUFFIX and old.stat().st_mtime < expired):
                old.unlink(missing_ok=True)  # pickles of older versions are never read again
    except OSError:
        pass  # another run deleted it first; the next run tries again
    return None
