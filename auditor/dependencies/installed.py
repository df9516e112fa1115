"""A dependency read from an environment instead of the index (`--site-packages DIR`): how git and
local requirements, which no index serves, are read. The distribution's `.dist-info` gives its
version and `Requires-Dist`; its `RECORD` lists the `.py` files, copied into the cache as the
index's releases are unpacked."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path, PurePosixPath

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version


@dataclass(frozen=True, slots=True)
class Installed:
    name: str
    version: Version
    requires: tuple[str, ...]
    dist_info: Path


def installed_in(site_packages: Path) -> dict[str, Installed]:
    """Every distribution installed in `site_packages`, by canonical name (read once per audit)."""
    found: dict[str, Installed] = {}
    for dist_info in sorted(site_packages.glob("*.dist-info")):
        try:
            headers = HeaderParser().parsestr(
                (dist_info / "METADATA").read_text("utf-8", "replace")
            )
            name = canonicalize_name(headers.get("Name", ""))
            found.setdefault(
                name,
                Installed(
                    name,
                    Version(headers.get("Version", "")),
                    tuple(headers.get_all("Requires-Dist") or ()),
                    dist_info,
                ),
            )
        except (OSError, InvalidVersion):
            continue
    return found


def sources(found: Installed, cache: Path) -> Path:
    """The distribution's `.py` files, copied under the cache (keyed by its RECORD)."""
    record = (
        (found.dist_info / "RECORD").read_bytes() if (found.dist_info / "RECORD").is_file() else b""
    )
    target = (
        cache
        / "dependencies"
        / "installed"
        / f"{found.name}-{found.version}-{hashlib.sha256(record).hexdigest()[:12]}"
    )
    if (target / ".complete").is_file():
        return target
    root = found.dist_info.parent
    for line in record.decode("utf-8", "replace").splitlines():
        member = line.split(",")[0]
        path = PurePosixPath(member)
        if (
            member.endswith(".py")
            and not path.is_absolute()
            and ".." not in path.parts
            and (root / member).is_file()
        ):
            (target / member).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / member, target / member)
    target.mkdir(parents=True, exist_ok=True)
    (target / ".complete").write_text(found.dist_info.name + "\n")
    return target
