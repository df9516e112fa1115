"""The package index: which releases exist, and one small wheel of each, downloaded to a file.

Reads the simple repository API (PEP 691 JSON, which carries file sizes, or the PEP 503 HTML
page). Nothing is installed: the wheel is only ever opened as a zip.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from auditor.errors import HarvestError

DEFAULT_INDEX = "https://pypi.org/simple/"
_ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
_TIMEOUT = 60
# Without sizes (an HTML page), prefer the platforms whose wheels are known to be smallest.
_PLATFORM_ORDER = ("macosx", "win", "manylinux", "linux", "any")


@dataclass(frozen=True, slots=True)
class IndexFile:
    filename: str
    url: str
    version: Version
    size: int | None
    sha256: str | None
    yanked: bool
    metadata: bool = False  # the index serves the wheel's METADATA beside it (PEP 658/714)


def index_url(base: str, package: str) -> str:
    return base.rstrip("/") + "/" + canonicalize_name(package) + "/"


def read_index(base: str, package: str, sdists: bool = False) -> list[IndexFile]:
    """Every wheel of `package` that the index lists (and every source archive, with `sdists`)."""
    url = index_url(base, package)
    request = urllib.request.Request(url, headers={"Accept": _ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as response:
            content_type = response.headers.get("Content-Type", "")
            body = response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise HarvestError(f"{url}: cannot read the index ({getattr(exc, 'reason', exc)})") from exc
    if "json" in content_type:
        try:
            files = json.loads(body)["files"]
        except (ValueError, KeyError, TypeError) as exc:
            raise HarvestError(f"{url}: not a simple-API JSON page ({exc})") from exc
        raw = [
            (
                f.get("filename", ""),
                urllib.parse.urljoin(url, f.get("url", "")),
                f.get("size"),
                (f.get("hashes") or {}).get("sha256"),
                bool(f.get("yanked")),
                bool(f.get("core-metadata") or f.get("data-dist-info-metadata")),
            )
            for f in files
        ]
    else:
        raw = _html_files(body.decode("utf-8", "replace"), url)
    out = []
    for filename, href, size, sha256, yanked, metadata in raw:
        try:
            if filename.endswith(".whl"):
                name, version, _, _ = parse_wheel_filename(filename)
            elif sdists and filename.endswith((".tar.gz", ".zip")):
                name, version = parse_sdist_filename(filename)
            else:
                continue
        except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
            continue
        if name != canonicalize_name(package):
            continue
        out.append(
            IndexFile(
                filename,
                href,
                version,
                size if isinstance(size, int) else None,
                sha256,
                yanked,
                metadata,
            )
        )
    return out


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[dict[str, str | None], str]] = []
        self._current: dict[str, str | None] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._current, self._text = dict(attrs), ""

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._current is not None:
            self.links.append((self._current, self._text.strip()))
            self._current = None


def _html_files(page: str, url: str) -> list[tuple[str, str, int | None, str | None, bool, bool]]:
    parser = _Links()
    parser.feed(page)
    out: list[tuple[str, str, int | None, str | None, bool, bool]] = []
    for attrs, text in parser.links:
        href = attrs.get("href") or ""
        full = urllib.parse.urljoin(url, href)
        fragment = re.search(r"#sha256=([0-9a-f]{64})", full)
        filename = text or full.split("#")[0].rsplit("/", 1)[-1]
        out.append(
            (
                filename,
                full.split("#")[0],
                None,
                fragment.group(1) if fragment else None,
                "data-yanked" in attrs,
                attrs.get("data-core-metadata", attrs.get("data-dist-info-metadata"))
                not in (None, "false"),
            )
        )
    return out


def releases(
    files: list[IndexFile], low: Version, high: Version, patches: bool = True
) -> list[Version]:
    """The final releases from `low` to `high` (both included) that have a wheel not yanked."""
    versions = {
        f.version
        for f in files
        if not f.yanked
        and not f.version.is_prerelease
        and not f.version.is_devrelease
        and not f.version.local
        and low <= f.version <= high
    }
    if not patches:
        versions = {v for v in versions if v.micro == 0 or v == low or v == high}
    return sorted(versions)


def smallest_wheel(files: list[IndexFile], version: Version) -> IndexFile | None:
    candidates = [f for f in files if f.version == version and not f.yanked]
    if not candidates:
        return None

    def rank(f: IndexFile) -> tuple[int, int, str]:
        platform = next(
            (i for i, p in enumerate(_PLATFORM_ORDER) if p in f.filename), len(_PLATFORM_ORDER)
        )
        return (f.size if f.size is not None else 1 << 40, platform, f.filename)

    return min(candidates, key=rank)


def download(file: IndexFile, directory: Path) -> Path:
    """`file` saved in `directory`, its sha256 checked when the index gives one."""
    target = directory / file.filename
    digest = hashlib.sha256()
    try:
        with (
            urllib.request.urlopen(file.url, timeout=_TIMEOUT) as response,
            target.open("wb") as out,
        ):
            while chunk := response.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except (urllib.error.URLError, OSError) as exc:
        target.unlink(missing_ok=True)
        raise HarvestError(
            f"{file.filename}: download failed ({getattr(exc, 'reason', exc)})"
        ) from exc
    if file.sha256 and digest.hexdigest() != file.sha256:
        target.unlink(missing_ok=True)
        raise HarvestError(f"{file.filename}: sha256 does not match the index")
    return target
