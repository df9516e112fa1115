"""The messages compiled into a release's C++ libraries: deprecation, removal and behaviour-change
warnings (TORCH_WARN, TORCH_CHECK texts) read as printable strings from the wheel's libraries, one
wheel per minor release, never installed or run. A message that appears between two releases is
a C++ candidate at the later one; one that disappears, a removal (or undeprecation) candidate.

Each release's messages are kept in the harvest cache as small gzipped JSON, never the library.
The candidates ship as one TOML per release pair under `knowledge/<package>/harvest/cxx/`."""

from __future__ import annotations

import fnmatch
import gzip
import hashlib
import itertools
import json
import re
import sys
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from packaging.utils import parse_wheel_filename
from packaging.version import Version

from auditor.cachefiles import write_whole
from auditor.errors import HarvestError, KnowledgeError
from auditor.harvest.index import IndexFile
from auditor.harvest.shipped import pair_key, read_toml
from auditor.progress import SILENT, ProgressReporter

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass

FORMAT = 1  # raise when messages are read or chosen differently: old cache files are then ignored
DIRECTORY = "cxx"  # under knowledge/<package>/harvest/
STATES = ("covered", "waived", "open")
KINDS = ("message-added", "message-removed")
# The libraries holding torch's C++ and its Python bindings, across the releases' layouts: one
# libtorch (up to 1.4) or libtorch_cpu (1.5 on), libtorch_python, and the extension module.
LIBRARY = re.compile(
    r"torch/(lib/lib(torch_cpu|torch_python|torch|caffe2)\.so(\.\d+)*|_C(\.[^/]*)?\.so)"
)
# Printable runs: a C string literal ends at its NUL; a TORCH_WARN's pieces are separate literals.
_PRINTABLE = re.compile(rb"[\t\n\x20-\x7e]{20,}")
_PRINTABLE_BYTES = bytes([9, 10, *range(0x20, 0x7F)])
# What reads as a warning a user sees about a change.
_WARNING = re.compile(
    r"deprecat|will be removed|(has|have|was|were) been removed|(has|have|was|were) removed"
    r"|(is|are) no longer|no longer (be )?support|will (now )?change|will be changed|(has|have) changed"
    r"|in a future (release|version)|in the future|future release|future version|is not supported anymore",
    re.IGNORECASE,
)
_ASSERT = (
    "INTERNAL ASSERT FAILED"  # an assertion's text, with a source line that moves every release
)
_CHUNK = 8 << 20


@dataclass(frozen=True, slots=True)
class CxxRelease:
    """One release's messages, and where they were read."""

    version: str
    wheel: str
    members: tuple[str, ...]  # the libraries read
    messages: tuple[tuple[str, str], ...]  # (message, the member it is in), sorted
    fetched: int = 0  # bytes downloaded to read it (0 when it came from the cache)


@dataclass(frozen=True, slots=True)
class CxxCandidate:
    id: str  # package@release:cxx-added|cxx-removed:<digest of the message>
    package: str
    before: str
    release: str
    kind: str  # message-added, message-removed
    message: str
    library: str


@dataclass(frozen=True, slots=True)
class Review:
    """A reviewed group of messages (`match`, fnmatch-style on the message; `kind`, when given,
    only candidates of that kind): covered by a curated entry, or waived with why; `symbol` names
    what a user calls to see it."""

    match: str
    entry: str | None
    waived: str | None
    symbol: str
    kind: str | None = None  # message-added or message-removed


@dataclass(frozen=True, slots=True)
class CxxStanding:
    candidate: CxxCandidate
    state: str  # covered, waived, open
    why: str  # the covering entry, the waiver's reason, or why it is open


def is_warning(text: str) -> bool:
    """A string that reads as a message about a change: words, not a symbol name or a path."""
    return " " in text.strip() and _WARNING.search(text) is not None and _ASSERT not in text


def strings(chunks: Iterable[bytes]) -> Iterator[str]:
    """The printable runs of at least 20 characters in a stream of bytes, in order."""
    carry = b""
    for chunk in chunks:
        data = carry + chunk
        head = data.rstrip(_PRINTABLE_BYTES)  # a run at the end may go on in the next chunk
        carry = data[len(head) :]
        yield from (found.group().decode("ascii") for found in _PRINTABLE.finditer(head))
    if _PRINTABLE.fullmatch(carry):
        yield carry.decode("ascii")


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    while chunk := stream.read(_CHUNK):
        yield chunk


def read_zip(wheel: zipfile.ZipFile) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The libraries `wheel` holds (`LIBRARY`) and their warning messages, sorted."""
    members = tuple(sorted(i.filename for i in wheel.infolist() if LIBRARY.fullmatch(i.filename)))
    found: set[tuple[str, str]] = set()
    for member in members:
        with wheel.open(member) as stream:
            found.update(
                (" ".join(s.split()), member) for s in strings(_chunks(stream)) if is_warning(s)
            )
    return members, tuple(sorted(found))


def choose_wheel(files: list[IndexFile], version: Version) -> IndexFile | None:
    """The release's Linux x86_64 wheel for CPython 3.10, or for the newest CPython it has."""

    def rank(f: IndexFile) -> tuple[int, int, int, str]:
        _, _, build, tags = parse_wheel_filename(f.filename)
        interpreters = {t.interpreter for t in tags}
        minor = max((int(i[3:]) for i in interpreters if re.fullmatch(r"cp3\d+", i)), default=-1)
        return (minor == 10, minor, build[0] if build else 0, f.filename)

    fitting = [
        f
        for f in files
        if f.version == version
        and not f.yanked
        and "x86_64" in f.filename
        and "linux" in f.filename
        and not re.search(r"cp3\d+t-", f.filename)
    ]
    return max(fitting, key=rank, default=None)


def read_remote(file: IndexFile) -> CxxRelease:
    """The release's messages, read through range requests: only the zip's central directory and
    the library members are downloaded."""
    from auditor.harvest.rangezip import open_remote

    raw, buffered = open_remote(file.url)
    try:
        with zipfile.ZipFile(buffered) as wheel:
            members, messages = read_zip(wheel)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise HarvestError(f"{file.filename}: cannot read its libraries ({exc})") from exc
    if not members:
        raise HarvestError(f"{file.filename}: holds none of torch's C++ libraries")
    return CxxRelease(str(file.version), file.filename, members, messages, raw.fetched)


def compare(old: CxxRelease, new: CxxRelease, package: str = "torch") -> list[CxxCandidate]:
    """The messages that appear in `new` and those that disappear from `old`."""
    before = dict(old.messages)
    after = dict(new.messages)
    out = []
    for kind, here, there in (("added", after, before), ("removed", before, after)):
        for message in sorted(set(here) - set(there)):
            digest = hashlib.sha256(message.encode()).hexdigest()[:12]
            out.append(
                CxxCandidate(
                    f"{package}@{new.version}:cxx-{kind}:{digest}",
                    package,
                    old.version,
                    new.version,
                    f"message-{kind}",
                    message,
                    here[message],
                )
            )
    return out


def compare_all(releases: list[CxxRelease], package: str = "torch") -> list[CxxCandidate]:
    return [c for old, new in itertools.pairwise(releases) for c in compare(old, new, package)]


# The cache: <cache dir>/<package>-cxx/<version>.json.gz


def cache_path(directory: Path, package: str, version: str) -> Path:
    return directory / f"{package}-cxx" / f"{version}.json.gz"


def load(directory: Path, package: str, version: str) -> CxxRelease | None:
    """The kept messages, or None when there are none or they are from another format."""
    path = cache_path(directory, package, version)
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
        if data.get("format") != FORMAT:
            return None
        return CxxRelease(
            data["version"],
            data["wheel"],
            tuple(data["members"]),
            tuple((m, lib) for m, lib in data["messages"] if is_warning(m)),
        )
    except (OSError, ValueError, EOFError, KeyError, TypeError, AttributeError):
        return None


def store(directory: Path, package: str, release: CxxRelease) -> None:
    """Raises OSError when the file cannot be written."""
    path = cache_path(directory, package, release.version)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT,
        "version": release.version,
        "wheel": release.wheel,
        "members": list(release.members),
        "messages": [list(m) for m in release.messages],
    }
    write_whole(path, gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))


# Shipped: knowledge/<package>/harvest/cxx/<from>..<to>.toml and review.toml

REVIEW = "review.toml"


def _s(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string: the same escapes


def pair_text(
    package: str, old: CxxRelease, new: CxxRelease, candidates: list[CxxCandidate]
) -> str:
    lines = [
        "# Generated by `auditor kb cxx --ship`: edit by harvesting again, not by hand.",
        f"package = {_s(package)}",
        f"from = {_s(old.version)}",
        f"to = {_s(new.version)}",
        f"wheels = [{_s(old.wheel)}, {_s(new.wheel)}]",
    ]
    for c in candidates:
        lines += [
            "",
            "[[candidate]]",
            f"id = {_s(c.id)}",
            f"kind = {_s(c.kind)}",
            f"library = {_s(c.library)}",
            f"message = {_s(c.message)}",
        ]
    return "\n".join(lines) + "\n"


def ship(
    package: str, releases: list[CxxRelease], candidates: list[CxxCandidate], knowledge: Path
) -> list[Path]:
    """One file per release pair that has candidates; a pair's file with none is deleted."""
    directory = knowledge / package / "harvest" / DIRECTORY
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for old, new in itertools.pairwise(releases):
        found = [c for c in candidates if c.before == old.version and c.release == new.version]
        path = directory / f"{old.version}..{new.version}.toml"
        if not found:
            path.unlink(missing_ok=True)
            continue
        path.write_text(pair_text(package, old, new, found), "utf-8")
        written.append(path)
    return written


def read_candidates(knowledge: Path, package: str) -> list[CxxCandidate]:
    """Every shipped C++ candidate of `package`, oldest release pair first."""
    directory = knowledge / package / "harvest" / DIRECTORY
    files = sorted(directory.glob("*..*.toml"), key=pair_key) if directory.is_dir() else []
    out: list[CxxCandidate] = []
    problems: list[str] = []
    for path in files:
        data = read_toml(path)
        for index, raw in enumerate(data.get("candidate", [])):
            try:
                out.append(
                    CxxCandidate(
                        raw["id"],
                        data["package"],
                        data["from"],
                        data["to"],
                        raw["kind"],
                        raw["message"],
                        raw["library"],
                    )
                )
            except (KeyError, TypeError) as exc:
                problems.append(f"{path}: candidate[{index}]: missing {exc}")
    if problems:
        raise KnowledgeError(problems)
    return out


def read_review(knowledge: Path, package: str) -> list[Review]:
    path = knowledge / package / "harvest" / DIRECTORY / REVIEW
    if not path.exists():
        return []
    out = []
    problems = []
    for index, raw in enumerate(read_toml(path).get("message", [])):
        ok = isinstance(raw, dict) and raw.get("match") and raw.get("symbol") is not None
        if not ok or (raw.get("entry") is None) == (raw.get("waived") is None):
            problems.append(
                f"{path}: message[{index}]: needs `match`, `symbol`, and one of `entry` or `waived`"
            )
            continue
        if raw.get("kind") not in (None, *KINDS):
            problems.append(
                f"{path}: message[{index}]: kind: {raw['kind']!r} is not one of {', '.join(KINDS)}"
            )
            continue
        out.append(
            Review(
                raw["match"], raw.get("entry"), raw.get("waived"), raw["symbol"], raw.get("kind")
            )
        )
    if problems:
        raise KnowledgeError(problems)
    return out


def stand(c: CxxCandidate, reviews: list[Review], entries: set[str]) -> CxxStanding:
    """The first review whose pattern takes the message decides; none: open."""
    for r in reviews:
        if r.kind not in (None, c.kind) or not fnmatch.fnmatchcase(c.message, r.match):
            continue
        if r.waived is not None:
            return CxxStanding(c, "waived", r.waived)
        if r.entry in entries:
            return CxxStanding(c, "covered", r.entry or "")
        return CxxStanding(
            c, "open", f"reviewed as covered by {r.entry}, which is no curated entry"
        )
    return CxxStanding(c, "open", "no review takes the message")


def standings(knowledge: Path, package: str, entries: set[str]) -> tuple[CxxStanding, ...]:
    reviews = read_review(knowledge, package)
    return tuple(stand(c, reviews, entries) for c in read_candidates(knowledge, package))


@dataclass(frozen=True, slots=True)
class CxxHarvest:
    package: str
    releases: tuple[CxxRelease, ...]
    candidates: tuple[CxxCandidate, ...]
    notes: tuple[str, ...]

    @property
    def fetched(self) -> int:
        return sum(r.fetched for r in self.releases)


def harvest(
    package: str,
    low: Version,
    high: Version,
    index: str,
    cache_dir: Path | None,
    progress: ProgressReporter = SILENT,
) -> CxxHarvest:
    """Every minor release's messages from `low` to `high` (X.Y.0), kept or read through range
    requests, and the candidates between consecutive ones; a release not read is a note."""
    from auditor.harvest.index import read_index, releases

    files = read_index(index, package)
    versions = [v for v in releases(files, low, high, patches=False) if v.micro == 0]
    done: list[CxxRelease] = []
    notes: list[str] = []
    progress.start(len(versions), f"reading {package}'s C++ messages")
    try:
        for version in versions:
            kept = load(cache_dir, package, str(version)) if cache_dir is not None else None
            if kept is None:
                wheel = choose_wheel(files, version)
                if wheel is None:
                    notes.append(
                        f"{package} {version}: no Linux x86_64 wheel on the index; not read"
                    )
                    progress.advance()
                    continue
                try:
                    kept = read_remote(wheel)
                except HarvestError as exc:
                    notes.append(f"{package} {version}: not read: {exc.message}")
                    progress.advance()
                    continue
                if cache_dir is not None:
                    try:
                        store(cache_dir, package, kept)
                    except OSError as exc:
                        notes.append(
                            f"{package} {version}: not kept in the cache ({exc.strerror or exc})"
                        )
            done.append(kept)
            progress.advance()
    finally:
        progress.finish()
    return CxxHarvest(package, tuple(done), tuple(compare_all(done, package)), tuple(notes))


def summary(h: CxxHarvest) -> str:
    """Per release the messages read, per pair the candidates, then the bytes downloaded."""
    lines = [
        f"{r.version}: {len(r.messages)} messages in {', '.join(r.members)} ({r.wheel})"
        for r in h.releases
    ]
    for old, new in itertools.pairwise(h.releases):
        found = [c for c in h.candidates if c.release == new.version]
        added = sum(c.kind == "message-added" for c in found)
        lines.append(f"{old.version} -> {new.version}: {added} added, {len(found) - added} removed")
        lines += [f"  {c.kind:15} {c.message}" for c in found]
    kept = sum(r.fetched == 0 for r in h.releases)
    lines.append(
        f"read {len(h.releases)} releases of {h.package} ({kept} from the cache), "
        f"{len(h.candidates)} candidates, {h.fetched} bytes downloaded"
    )
    lines += [f"note: {n}" for n in h.notes]
    return "\n".join(lines) + "\n"
