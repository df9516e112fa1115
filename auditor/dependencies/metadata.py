"""What one release of a package requires (`Requires-Dist`), read from the index, never installed.

The index's listing (PEP 691 JSON or PEP 503 HTML) names the release's wheels. The metadata file
beside a wheel (PEP 658/714) is read where the index offers one; otherwise the wheel's own
`METADATA` is read with HTTP range requests (the zip's central directory, then that one member),
so a 200 MB wheel costs a few kilobytes. A release with only a source archive is downloaded and
its `PKG-INFO` read (or, when that names no requirement, its `*.egg-info/requires.txt`). Answers are
cached under `<cache>/dependencies/<name>/<version>.json` with the index and the file they were
read from (an index does not change a release's files), and a package's listing for a day.
"""

from __future__ import annotations

import json
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path, PurePosixPath

from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.cachefiles import write_whole
from auditor.errors import HarvestError
from auditor.harvest.index import DEFAULT_INDEX, IndexFile, download, read_index
from auditor.harvest.rangezip import open_remote

_TIMEOUT = 30
_LISTING_AGE = 24 * 3600  # seconds a package's listing is reused
_CHUNK = 1 << 16  # the least a range request asks for


class Unread(Exception):
    """A release whose requirements could not be read: the message says why."""


@dataclass(frozen=True, slots=True)
class Release:
    name: str
    version: Version
    requires: tuple[str, ...]  # the Requires-Dist lines
    read_from: str  # the file they were read from


class Index:
    """One package index, read through the cache directory (None: nothing kept)."""

    def __init__(self, url: str = DEFAULT_INDEX, cache: Path | None = None) -> None:
        self.url = url
        self.cache = cache / "dependencies" if cache is not None else None
        self._listings: dict[str, list[IndexFile]] = {}

    def files(self, name: str) -> list[IndexFile]:
        """The wheels and source archives the index lists for `name`. Raises Unread."""
        name = canonicalize_name(name)
        if name not in self._listings:
            self._listings[name] = self._listing(name)
        return self._listings[name]

    def release(self, name: str, version: Version) -> Release:
        """What `name` at `version` requires. Raises Unread."""
        name = canonicalize_name(name)
        kept = self._kept(name, version)
        if (
            kept is not None
        ):  # a release's files do not change on an index: its listing is not read again
            return kept
        # a yanked release pinned exactly is still installed (PEP 592): its files are read
        files = sorted(
            (f for f in self.files(name) if f.version == version),
            key=lambda f: (f.yanked, not f.filename.endswith(".whl"), not f.metadata, f.filename),
        )
        if not files:
            raise Unread("the index lists no file of it")
        wheel = files[0]
        if not wheel.filename.endswith(".whl"):
            requires = _requires_in_sdist(wheel)
        else:
            text = _metadata_file(wheel) if wheel.metadata else _metadata_in_wheel(wheel)
            requires = tuple(HeaderParser().parsestr(text).get_all("Requires-Dist") or ())
        found = Release(name, version, requires, wheel.filename)
        self._keep(found, wheel)
        return found

    def _listing(self, name: str) -> list[IndexFile]:
        path = self.cache / name / "files.json" if self.cache is not None else None
        if (
            path is not None
            and path.is_file()
            and time.time() - path.stat().st_mtime < _LISTING_AGE
        ):
            try:
                return [
                    IndexFile(
                        f["filename"],
                        f["url"],
                        Version(f["version"]),
                        f["size"],
                        f["sha256"],
                        f["yanked"],
                        f["metadata"],
                    )
                    for f in json.loads(path.read_bytes())
                ]
            except (ValueError, KeyError, TypeError):
                pass  # read again below
        try:
            files = read_index(self.url, name, sdists=True)
        except HarvestError as exc:
            raise Unread(str(exc)) from exc
        if path is not None:
            data = [
                {
                    "filename": f.filename,
                    "url": f.url,
                    "version": str(f.version),
                    "size": f.size,
                    "sha256": f.sha256,
                    "yanked": f.yanked,
                    "metadata": f.metadata,
                }
                for f in files
            ]
            _write(path, json.dumps(data).encode())
        return files

    def _kept(self, name: str, version: Version) -> Release | None:
        if self.cache is None:
            return None
        try:
            data = json.loads((self.cache / name / f"{version}.json").read_bytes())
            if data.get("index") != self.url:
                return None
            return Release(name, version, tuple(data["requires"]), str(data["file"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _keep(self, release: Release, wheel: IndexFile) -> None:
        if self.cache is not None:
            data = {
                "index": self.url,
                "file": wheel.filename,
                "sha256": wheel.sha256,
                "requires": list(release.requires),
            }
            _write(self.cache / release.name / f"{release.version}.json", json.dumps(data).encode())


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, data)
    except OSError:
        pass  # a cache that cannot be written is read again next time


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(urllib.request.Request(url), timeout=_TIMEOUT) as response:
            body: bytes = response.read()
            return body
    except (urllib.error.URLError, OSError) as exc:
        raise Unread(f"{url}: {getattr(exc, 'reason', exc)}") from exc


_SDIST_LIMIT = (
    64 << 20
)  # a source archive larger than this is not downloaded to read its requirements


def _requires_in_sdist(sdist: IndexFile) -> tuple[str, ...]:
    """Requires-Dist of PKG-INFO (metadata 2.2 and later, and most setuptools builds), else the
    egg-info's requires.txt: its first lines hold always, `[extra]` sections under an extra and
    `[:marker]` sections under a marker."""
    if sdist.size is not None and sdist.size > _SDIST_LIMIT:
        raise Unread(f"{sdist.filename}: a source archive of {sdist.size >> 20} MB, not downloaded")
    with tempfile.TemporaryDirectory(prefix="auditor-sdist-") as scratch:
        try:
            archive = download(sdist, Path(scratch))
        except HarvestError as exc:
            raise Unread(str(exc)) from exc
        members = read_archive(
            archive, lambda name: name.endswith(("/PKG-INFO", ".egg-info/requires.txt"))
        )
    info = next(
        (
            text
            for name, text in sorted(members.items())
            if name.count("/") == 1 and name.endswith("PKG-INFO")
        ),
        b"",
    )
    found = tuple(
        HeaderParser().parsestr(info.decode("utf-8", "replace")).get_all("Requires-Dist") or ()
    )
    if found:
        return found
    listed = next(
        (text for name, text in sorted(members.items()) if name.endswith("requires.txt")), b""
    )
    out, marker = [], ""
    for line in listed.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            extra, _, condition = line[1:-1].partition(":")
            parts = [f"extra == '{extra}'"] if extra else []
            marker = " and ".join(parts + ([f"({condition})"] if condition else []))
        elif line and not line.startswith("#"):
            out.append(f"{line}; {marker}" if marker else line)
    return tuple(out)


def read_archive(archive: Path, wanted: Callable[[str], bool]) -> dict[str, bytes]:
    """The members of a wheel, tar or zip archive whose names `wanted` accepts, by name. Names
    that climb out (`..`, absolute) and links are passed over. Raises Unread."""
    found: dict[str, bytes] = {}
    try:
        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as opened:
                for name in opened.namelist():
                    if _safe(name) and wanted(name):
                        found[name] = opened.read(name)
        else:
            with tarfile.open(archive) as opened:
                for member in opened.getmembers():
                    if member.isfile() and _safe(member.name) and wanted(member.name):
                        handle = opened.extractfile(member)
                        if handle is not None:
                            found[member.name] = handle.read()
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as exc:
        raise Unread(f"{archive.name}: not a readable archive ({exc})") from exc
    return found


def _safe(name: str) -> bool:
    path = PurePosixPath(name)
    return not path.is_absolute() and ".." not in path.parts


def _metadata_file(wheel: IndexFile) -> str:
    return _get(wheel.url + ".metadata").decode("utf-8", "replace")


def _metadata_in_wheel(wheel: IndexFile) -> str:
    try:
        _, remote = open_remote(wheel.url, size=wheel.size, block=_CHUNK)
        with zipfile.ZipFile(remote) as archive:
            member = next(
                (
                    n
                    for n in archive.namelist()
                    if n.count("/") == 1
                    and n.split("/")[0].endswith(".dist-info")
                    and n.endswith("/METADATA")
                ),
                None,
            )
            if member is None:
                raise Unread(f"{wheel.filename}: no .dist-info/METADATA in the wheel")
            return archive.read(member).decode("utf-8", "replace")
    except HarvestError as exc:  # the size, or a range, could not be read
        raise Unread(str(exc)) from exc
    except (zipfile.BadZipFile, ValueError) as exc:
        raise Unread(f"{wheel.filename}: not a readable wheel ({exc})") from exc
