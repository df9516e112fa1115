"""A locked release's Python sources, unpacked from its wheel into the cache and never run.

`<cache>/dependencies/sources/<name>-<version>-<sha256[:12]>/` holds the wheel's `.py` files (the
pure-Python wheel when there is one, else the smallest); the wheel itself is deleted once read.
A second audit of the same lock finds the folder and downloads nothing.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from packaging.version import Version

from auditor.dependencies.metadata import Index, Unread
from auditor.errors import HarvestError
from auditor.harvest.index import IndexFile, download


def sources(index: Index, name: str, version: Version, cache: Path) -> Path:
    """The folder of the release's sources. Raises Unread."""
    wheels = [f for f in index.files(name) if f.version == version and not f.yanked]
    if not wheels:
        raise Unread("the index lists no wheel of it (an sdist is not read)")
    wheel = min(wheels, key=_rank)
    target = cache / "dependencies" / "sources" / f"{name}-{version}-{(wheel.sha256 or 'nohash')[:12]}"
    if (target / ".complete").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".unpack-") as scratch:
        try:
            archive = download(wheel, Path(scratch))
        except HarvestError as exc:
            raise Unread(str(exc)) from exc
        unpacked = Path(scratch) / "tree"
        try:
            with zipfile.ZipFile(archive) as opened:
                for member in opened.namelist():
                    relative = PurePosixPath(member)
                    if member.endswith(".py") and ".." not in relative.parts and not relative.is_absolute():
                        (unpacked / relative).parent.mkdir(parents=True, exist_ok=True)
                        (unpacked / relative).write_bytes(opened.read(member))
        except (zipfile.BadZipFile, OSError) as exc:
            raise Unread(f"{wheel.filename}: not a readable wheel ({exc})") from exc
        (unpacked / ".complete").write_text(wheel.filename + "\n")
        shutil.rmtree(target, ignore_errors=True)
        unpacked.rename(target)
    return target


def _rank(wheel: IndexFile) -> tuple[bool, int, str]:
    return ("none-any" not in wheel.filename, wheel.size or 1 << 40, wheel.filename)
