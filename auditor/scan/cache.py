"""Per-file scan results kept between runs, addressed by everything that decides them.

What a file yields depends on its bytes, its path in the project (its kind, module or notebook,
and whatever a matcher may one day read from it, such as the package of a relative import), the
rules (the crossed knowledge entries) and the scanner itself (our code, our version, the Python
whose `ast` reads it). The key hashes all of these, so any change is simply a miss: nothing is
ever invalidated by hand. A file whose result rests on other modules of the project (a version
guard reading a constant of another module) keeps, with its result, each module lookup it made
and the digest of the file found (`modules.Dependency`); the result is served again only while
every lookup still finds the same bytes. Each result also keeps the module's facts for the
project index (`feeds.Facts`); a module analysed again with what other modules feed it is
stored under its key and what it was fed (`fed_key`). The results are stored compactly (JSON
rows without the path) in one SQLite database, `scan.sqlite3`, under the cache directory and
nowhere else.

A cache that never held a result of this scanner and these rules (`blank`: its `contexts` table,
the contexts results were stored for, does not list theirs) would miss every lookup: the files
are not read to be looked up, and the processes that scan them make their keys (`Keys`) from the
bytes they read anyway.

What is not used is not kept: each entry carries the day it was last read or written, and
entries unused for `MAX_AGE_DAYS` (those of files since edited, other projects, older versions
of auditor or of the knowledge) are deleted when a scan closes the cache.

The cache must never break a scan: a database that cannot be opened or written is dropped for
the run and the scan goes on uncached; each such problem is kept in `problems` (or raised as
`CacheUnusable` by `open`), for the report to say once.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import time
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from auditor import __version__
from auditor.cachefiles import MAX_AGE_DAYS
from auditor.knowledge.entry import SpecChange
from auditor.models import Finding, Skipped
from auditor.scan import syntax
from auditor.scan.feeds import Facts
from auditor.scan.modules import Dependency

FORMAT = 6  # of the stored values; part of every key
DATABASE = "scan.sqlite3"
_BATCH = 500  # keys per SELECT, well under SQLite's limit on bound parameters
_WRITE_EVERY = (
    512  # results stored are written in batches while the scan goes on, not all at its end
)
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# auditor's scan cache; see https://bford.info/cachedir/\n"

FileResult = tuple[
    list[Finding], list[Skipped], Facts | None
]  # facts: for the project index (`feeds`)


@lru_cache(maxsize=1)
def scanner_fingerprint() -> bytes:
    """The tool's version, the scanner's own source and the interpreters: what reads the files
    (a newer one reads the sources of newer syntax, `syntax.newer_python`).

    The source is hashed too because a development install keeps one version number while the
    matchers change under it.
    """
    newer = syntax.newer_python()
    digest = hashlib.sha256(f"{__version__}\0{FORMAT}\0{sys.version}\0{newer}\0".encode())
    package = Path(__file__).resolve().parent
    types = [
        package.parent / "models.py",
        package.parent / "knowledge" / "entry.py",
        package.parent / "fix" / "spec.py",
    ]
    for module in [*sorted(package.glob("*.py")), *types]:
        try:
            digest.update(module.name.encode() + b"\0" + module.read_bytes() + b"\0")
        except OSError:  # a zipped install: the version alone has to do
            digest.update(module.name.encode() + b"\0?\0")
    return digest.digest()


def knowledge_fingerprint(
    changes: Iterable[SpecChange],
    known: Iterable[str] = (),
    ends: object = (),
    presence: str = "",
) -> bytes:
    """The crossed entries, as data: any edit to an entry (or another set of entries) differs;
    every id of the knowledge base, which tells an ignore comment's unknown ids; and what decides
    the code behind version guards: the versions at the ends of the transition, and what each
    release has (`presence`: the digest of `knowledge.presence`)."""
    digest = hashlib.sha256()
    for change in sorted(changes, key=lambda c: c.id):
        digest.update(repr(change).encode() + b"\0")
    digest.update(b"\0known\0" + "\0".join(sorted(known)).encode())
    digest.update(b"\0ends\0" + repr(ends).encode())
    if presence:
        digest.update(b"\0presence\0" + presence.encode())
    return digest.digest()


def encode(result: FileResult, dependencies: Iterable[Dependency] = ()) -> bytes:
    findings, skipped, facts = result
    rows = [
        [f.change, f.symbol, f.line, f.column, f.cell, f.confidence, f.message, f.snippet, f.shape]
        for f in findings
    ]
    needs = [[d.request, d.relative, d.digest] for d in dependencies]
    data = [
        rows,
        [[s.reason, s.kind] for s in skipped],
        facts.data() if facts is not None else None,
        needs,
    ]
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def decode(value: bytes, path: str) -> tuple[FileResult, tuple[Dependency, ...]]:
    """A stored result, and the module lookups it rests on."""
    rows, skips, facts, needs = json.loads(value)
    findings = [
        Finding(
            change=c,
            symbol=s,
            path=path,
            line=line,
            column=col,
            cell=cell,
            confidence=conf,
            message=m,
            snippet=snip,
            shape=shape,
        )
        for c, s, line, col, cell, conf, m, snip, shape in rows
    ]
    dependencies = tuple(
        Dependency(str(request), relative, digest) for request, relative, digest in needs
    )
    result = (
        findings,
        [Skipped(path, reason, kind) for reason, kind in skips],
        Facts.of(facts) if facts is not None else None,
    )
    return result, dependencies


class Keys:
    """The keys of files' results for one scanner and set of rules (`context`): made where the
    files are read, in this process or in the processes that scan them."""

    def __init__(self, context: bytes) -> None:
        self._seed = hashlib.sha256(
            context
        )  # with the CPU's SHA instructions, twice blake2b's speed

    def key(self, data: bytes, relative: str) -> bytes:
        """The key of a file's bytes at `relative` (its path from the project root)."""
        digest = self._seed.copy()
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.digest()[:20]


class CacheUnusable(Exception):
    """The cache directory or database cannot be used; the message says which and why."""


class ScanCache:
    """Lookups and stores of per-file results; stores are written a batch at a time as the
    scan goes on, and the rest when it is closed."""

    def __init__(
        self, connection: sqlite3.Connection, context: bytes, directory: Path | None = None
    ) -> None:
        self._connection: sqlite3.Connection | None = connection
        self.directory = directory
        self.problems: list[str] = []  # what went wrong after opening, for the report
        self.context = context
        self._keys = Keys(context)
        self._pending: list[tuple[bytes, bytes]] = []
        self._read: list[bytes] = []  # keys found: used today
        self._context_kept = False
        try:
            found = connection.execute(
                "SELECT 1 FROM contexts WHERE context = ?", (context,)
            ).fetchone()
        except sqlite3.Error:
            found = True  # then look the files up: a read that fails is said there
        # Nothing was ever stored for this scanner and these rules: every lookup would miss, so
        # the files are not read here to be looked up; the processes that scan them make the keys.
        self.blank = found is None

    @classmethod
    def open(
        cls,
        directory: Path,
        changes: Iterable[SpecChange],
        known: Iterable[str] = (),
        ends: object = (),
        presence: str = "",
    ) -> ScanCache:
        """The cache in `directory` for these rules; CacheUnusable when it cannot be used."""
        context = scanner_fingerprint() + knowledge_fingerprint(changes, known, ends, presence)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            tag = directory / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text(_TAG, "utf-8")
            return cls(_connect(directory / DATABASE), context, directory)
        except (OSError, sqlite3.Error) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise CacheUnusable(
                f"the scan cache in {directory} cannot be used ({reason}): every file was scanned"
            ) from exc

    def key(self, data: bytes, relative: str) -> bytes:
        """The key of a file's bytes at `relative` (its path from the project root)."""
        return self._keys.key(data, relative)

    def fed_key(self, key: bytes, fed: bytes) -> bytes:
        """The key of a file's result when other modules feed its parameters (`feeds.digest`)."""
        return hashlib.blake2b(key + b"\0fed\0" + fed, digest_size=20).digest()

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        """The stored values of those keys that are present."""
        if self._connection is None or not keys:
            return {}
        found: dict[bytes, bytes] = {}
        try:
            for start in range(0, len(keys), _BATCH):
                batch = keys[start : start + _BATCH]
                marks = ",".join("?" * len(batch))
                rows = self._connection.execute(
                    f"SELECT key, value FROM entries WHERE key IN ({marks})", batch
                )
                found.update(rows)
            self._read.extend(found)
        except sqlite3.Error as exc:
            self.problems.append(
                f"the scan cache in {self.directory} could not be read ({exc}): its files were scanned"
            )
            self._drop()
        return found

    def put(self, key: bytes, result: FileResult, dependencies: Iterable[Dependency] = ()) -> None:
        """Keep a file's result; not one of newer syntax left unread, which rests on more than
        the file (the project's `requires-python`, an interpreter installed since)."""
        if self._connection is None or any(s.kind == "newer-syntax" for s in result[1]):
            return
        self._pending.append((key, encode(result, dependencies)))
        if len(self._pending) >= _WRITE_EVERY:
            try:
                with (
                    self._connection
                ):  # a transaction of its own: no lock held while the scan goes on
                    self._write()
            except sqlite3.Error as exc:
                self._lost(exc)

    def _write(self) -> None:
        assert self._connection is not None
        today = int(time.time() // 86400)
        self._connection.executemany(
            "INSERT OR REPLACE INTO entries (key, value, used) VALUES (?, ?, ?)",
            [(key, value, today) for key, value in self._pending],
        )
        if (
            self._pending and not self._context_kept
        ):  # with the first results: from now on a lookup may hit
            self._connection.execute(
                "INSERT OR REPLACE INTO contexts (context, used) VALUES (?, ?)",
                (self.context, today),
            )
            self._context_kept = True
        self._pending.clear()

    def _lost(self, exc: sqlite3.Error) -> None:
        """Another run holding the lock too long, a full disk: said once, the cache dropped."""
        self.problems.append(
            f"the results of this scan could not be kept in {self.directory} ({exc}): the next scan reads the files again"
        )
        self._pending.clear()
        self._drop()

    def close(self) -> None:
        if self._connection is None:
            return
        today = int(time.time() // 86400)
        try:
            with self._connection:
                self._write()
                self._connection.executemany(
                    "UPDATE entries SET used = ? WHERE key = ? AND used < ?",
                    [(today, key, today) for key in self._read],
                )
                self._connection.execute(
                    "DELETE FROM entries WHERE used < ?", (today - MAX_AGE_DAYS,)
                )
                if self._read:
                    self._connection.execute(
                        "UPDATE contexts SET used = ? WHERE context = ?", (today, self.context)
                    )
                self._connection.execute(
                    "DELETE FROM contexts WHERE used < ?", (today - MAX_AGE_DAYS,)
                )
        except sqlite3.Error as exc:
            self._lost(exc)
        finally:
            self._pending.clear()
            self._read.clear()
            self._drop()

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _connect(path: Path) -> sqlite3.Connection:
    def attempt() -> sqlite3.Connection:
        connection = sqlite3.connect(path, timeout=10)
        try:
            connection.execute("PRAGMA journal_mode=WAL")  # readers go on while another run writes
            connection.execute("PRAGMA synchronous=NORMAL")  # a lost last write is only a miss
            connection.execute("DROP TABLE IF EXISTS results")  # format 1, without the day of use
            connection.execute(
                "CREATE TABLE IF NOT EXISTS entries"
                " (key BLOB PRIMARY KEY, value BLOB NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID"
            )
            connection.execute("CREATE INDEX IF NOT EXISTS entries_used ON entries (used)")
            connection.execute(  # the scanners and rules results were stored for (`ScanCache.blank`)
                "CREATE TABLE IF NOT EXISTS contexts (context BLOB PRIMARY KEY, used INTEGER NOT NULL) WITHOUT ROWID"
            )
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    try:
        return attempt()
    except sqlite3.DatabaseError as exc:
        if "not a database" not in str(exc) and "malformed" not in str(exc):
            raise
        for leftover in (
            path,
            path.with_name(path.name + "-wal"),
            path.with_name(path.name + "-shm"),
        ):
            leftover.unlink(missing_ok=True)  # a damaged cache is worth nothing: start it again
        return attempt()
