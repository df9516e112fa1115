"""conda-lock's unified `conda-lock.yml` (version 1): `metadata` and a `package` list with one
entry per package and platform, from conda (`manager: conda`) or pip (`manager: pip`)."""

from __future__ import annotations

import re
from pathlib import Path

from auditor.errors import LockfileError
from auditor.lockfiles.conda import load_yaml, torch_of_metapackages, version_pin
from auditor.lockfiles.conda_list import explicit_pin
from auditor.lockfiles.interface import Fields, LockFormat, canonical, nothing_in
from auditor.models import Lock, Pin

FORMAT = "conda-lock.yml"


def claims(path: Path, text: str) -> int:
    if path.name.endswith(("conda-lock.yml", "conda-lock.yaml")):
        return 3
    head = text[:20000]
    if re.search(r"^package:", head, re.MULTILINE) and re.search(
        r"^\s+manager: (conda|pip)", head, re.MULTILINE
    ):
        return 3
    return 0


def parse(path: Path, text: str) -> Lock:
    data = load_yaml(path, text)
    if data is None:
        raise nothing_in(path, FORMAT)
    document = Fields(data, "conda-lock.yml", path)
    version = document.data.get("version")
    if version not in (1, None):
        raise LockfileError(f"unsupported conda-lock version {version!r} (known: 1)", path)
    pins = []
    for index, raw in enumerate(document.array("package")):
        pins.append(_pin(Fields(raw, f"package[{index}]", path), path))
    return Lock(path=str(path), format=FORMAT, pins=tuple(torch_of_metapackages(pins)))


def _pin(package: Fields, path: Path) -> Pin:
    name, version = package.required("name"), str(package.data.get("version") or "")
    platform = package.string("platform")
    groups = tuple(g for g in (package.string("category"),) if g)
    if package.string("manager") == "pip":
        parsed = Pin(canonical(name), None)
        if version:
            parsed = version_pin(name, version)
        return Pin(
            canonical(name),
            parsed.version,
            source="pypi",
            groups=groups,
            platform=platform,
            specifier=parsed.specifier,
        )
    url = package.string("url")
    if url:
        pin = explicit_pin(url, path, None, platform)
        return Pin(
            pin.name,
            pin.version,
            source=pin.source,
            groups=groups,
            platform=platform,
            build=pin.build,
            specifier=pin.specifier,
        )
    if not version:
        raise package.fail("version", "missing")
    return version_pin(name, version, groups=groups, platform=platform)


CONDA_LOCK = LockFormat(FORMAT, claims, parse)
