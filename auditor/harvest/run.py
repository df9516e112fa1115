"""A harvest: the releases of a range read one by one (kept or downloaded), then compared."""

from __future__ import annotations

import itertools
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from auditor.errors import HarvestError, UsageError
from auditor.harvest import cache
from auditor.harvest.candidates import compare
from auditor.harvest.deprecations import find_sites
from auditor.harvest.index import (
    DEFAULT_INDEX,
    IndexFile,
    download,
    read_index,
    releases,
    smallest_wheel,
)
from auditor.harvest.model import Candidate, Harvest, Release
from auditor.harvest.related import appeared, relate, restored
from auditor.harvest.surface import Surface
from auditor.harvest.wheel import import_name, read_wheel
from auditor.progress import SILENT, ProgressReporter

PACKAGES = ("torch", "torchvision", "torchaudio", "numpy")


@dataclass(frozen=True, slots=True)
class HarvestSettings:
    index: str = DEFAULT_INDEX
    cache_dir: Path | None = None  # None: nothing kept
    patches: bool = True  # the patch releases too, not only X.Y.0
    work_dir: Path | None = None  # where wheels are downloaded (and deleted); default: a temp dir


def harvest_wheel(path: Path, package: str, version: str) -> Release:
    """One wheel's surface and deprecation sites. Raises HarvestError when it is not a zip."""
    try:
        sources, notes = read_wheel(path, package)
    except (OSError, zipfile.BadZipFile) as exc:
        raise HarvestError(f"cannot read the wheel ({exc})", path) from exc
    surface = Surface(sources, import_name(package))
    symbols = surface.symbols()
    sites, private = find_sites(sources, symbols)
    if private:
        notes.append(
            f"{package} {version}: {private} deprecation sites in private code reach no public symbol"
        )
    if not sources:
        notes.append(
            f"{package} {version}: {path.name} holds no Python sources of {import_name(package)}"
        )
    return Release(
        package, version, path.name, tuple(symbols), tuple(sites), surface.stubs, tuple(notes)
    )


def _version(text: str, option: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion as exc:
        raise UsageError(f"{option} {text!r} is not a version") from exc


def harvest(
    package: str,
    low: str,
    high: str,
    settings: HarvestSettings,
    progress: ProgressReporter = SILENT,
) -> Harvest:
    lo, hi = _version(low, "--from"), _version(high, "--to")
    if lo > hi:
        raise UsageError(f"--from {low} is newer than --to {high}")
    files = read_index(settings.index, package)
    versions = releases(files, lo, hi, settings.patches)
    notes: list[str] = []
    yanked = sorted(
        {
            f.version
            for f in files
            if lo <= f.version <= hi and not f.version.is_prerelease and not f.version.is_devrelease
        }
        - {f.version for f in files if not f.yanked}
    )
    notes += [f"{package} {v}: every file is yanked on the index; not harvested" for v in yanked]
    if not versions:
        notes.append(f"{package}: the index lists no final release from {low} to {high}")
    failed: list[tuple[str, str]] = []
    done: list[Release] = []
    progress.start(len(versions), f"harvesting {package}")
    try:
        with tempfile.TemporaryDirectory(prefix="auditor-harvest-", dir=settings.work_dir) as work:
            for version in versions:
                try:
                    done.append(_release(package, version, files, settings, Path(work), notes))
                except HarvestError as exc:
                    failed.append((str(version), exc.message if exc.path is None else str(exc)))
                progress.advance()
    finally:
        progress.finish()
    candidates: list[Candidate] = []
    for old, new in itertools.pairwise(done):
        candidates += compare(old, new)
    listed = sorted(
        {*releases(files, lo, hi), *yanked}
    )  # every release, read or not: `since` passes over none
    candidates = appeared(restored(relate(candidates), done), done, listed)
    for release in done:
        notes += release.notes
    for failed_version, reason in failed:
        notes.append(f"{package} {failed_version}: not harvested: {reason}")
    return Harvest(package, tuple(done), tuple(candidates), tuple(failed), tuple(notes))


def _release(
    package: str,
    version: Version,
    files: list[IndexFile],
    settings: HarvestSettings,
    work: Path,
    notes: list[str],
) -> Release:
    if settings.cache_dir is not None:
        try:
            kept = cache.load(settings.cache_dir, package, str(version))
        except ValueError as exc:
            notes.append(f"harvest cache not used: {exc}")
            kept = None
        if kept is not None:
            return kept
    wheel = smallest_wheel(files, version)
    if wheel is None:
        raise HarvestError(f"no wheel of {package} {version} on the index")
    path = download(wheel, work)
    try:
        release = harvest_wheel(path, package, str(version))
    finally:
        path.unlink(missing_ok=True)
    if settings.cache_dir is not None:
        try:
            cache.store(settings.cache_dir, release)
        except OSError as exc:
            notes.append(
                f"harvest cache not written for {package} {version}: {exc.strerror or exc}"
            )
    return release
