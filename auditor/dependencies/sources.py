"""A locked release's Python sources, unpacked from its wheel into the cache and never run.

`<cache>/dependencies/sources/<name>-<version>-<sha256[:12]>/` holds the `.py` files of the
release's wheel (the pure-Python one when there is one, else the smallest), or of its source
archive when it has no wheel; the archive itself is deleted once read.
A second audit of the same lock finds the folder and downloads nothing.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path, PurePosixPath

from packaging.version import Version

from auditor.dependencies.metadata import Index, Unread, read_archive
from auditor.errors import HarvestError
from auditor.harvest.index import IndexFile, download


def sources(index: Index, name: str, version: Version, cache: Path) -> Path:
    """The folder of the release's sources. Raises Unread."""
    done = sorted((cache / "dependencies" / "sources").glob(f"{name}-{version}-*/.complete"))
    if done:  # unpacked before: the listing is not read again
        return done[0].parent
    files = [f for f in index.files(name) if f.version == version]  # yanked ones too (PEP 592)
    if not files:
        raise Unread("the index lists no file of it")
    chosen = min(files, key=_rank)
    target = (
        cache / "dependencies" / "sources" / f"{name}-{version}-{(chosen.sha256 or 'nohash')[:12]}"
    )
    if (target / ".complete").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".unpack-") as scratch:
        try:
            archive = download(chosen, Path(scratch))
        except HarvestError as exc:
            raise Unread(str(exc)) from exc
        members = read_archive(archive, lambda member: member.endswith(".py"))
        unpacked = Path(scratch) / "tree"
        wheel = chosen.filename.endswith(".whl")
        for member, data in members.items():
            parts = (
                PurePosixPath(member).parts if wheel else PurePosixPath(member).parts[1:]
            )  # sdist: name-version/
            if parts:
                (unpacked / Path(*parts)).parent.mkdir(parents=True, exist_ok=True)
                (unpacked / Path(*parts)).write_bytes(data)
        unpacked.mkdir(exist_ok=True)
        (unpacked / ".complete").write_text(chosen.filename + "\n")
        shutil.rmtree(target, ignore_errors=True)
        unpacked.rename(target)
    return target


def _rank(file: IndexFile) -> tuple[bool, bool, int, str]:
    """A wheel before a source archive, a pure-Python wheel first, then the smallest."""
    return (
        not file.filename.endswith(".whl"),
        "none-any" not in file.filename,
        file.size or 1 << 40,
        file.filename,
    )
