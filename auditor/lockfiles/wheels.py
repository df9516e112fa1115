"""What the wheel files a lock lists show about a package's move: the Pythons it stops shipping
wheels for, and a raised glibc (manylinux) or macOS baseline. Only locks that list wheel files
with their tags say this (uv.lock: `wheels = [{ url = ... }]`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from packaging.tags import Tag
from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from auditor.lockfiles.changes import PackageChange
from auditor.lockfiles.variants import python_specifier
from auditor.models import EnvironmentFinding, Lock, Pin

_CPYTHON = re.compile(r"cp3(\d+)")
_MANYLINUX = re.compile(r"manylinux_(\d+)_(\d+)_(\w+)")
_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_MACOS = re.compile(r"macosx_(\d+)_(\d+)_(\w+)")


def _tags(pin: Pin) -> list[frozenset[Tag]]:
    found = []
    for name in pin.wheels:
        try:
            found.append(parse_wheel_filename(name)[3])
        except InvalidWheelFilename:
            continue
    return found


def pythons(pin: Pin) -> set[str] | None:
    """The CPython versions (`3.9`) the pin has wheels for; None when a wheel fits any Python
    3 (`py3`, `abi3`) or the lock lists none."""
    found: set[str] = set()
    for tags in _tags(pin):
        for tag in tags:
            if tag.abi == "abi3" or not tag.interpreter.startswith("cp"):
                return None
            minor = _CPYTHON.fullmatch(tag.interpreter)
            if minor:
                found.add(f"3.{minor.group(1)}")
    return found or None


def baselines(pin: Pin) -> dict[tuple[str, str], tuple[int, int]]:
    """The oldest system each architecture's wheels run on: (`glibc`, `x86_64`) -> (2, 17),
    (`macOS`, `arm64`) -> (11, 0): the lowest a wheel asks for, per architecture."""
    lowest: dict[tuple[str, str], tuple[int, int]] = {}
    for tags in _tags(pin):
        per_wheel: dict[tuple[str, str], tuple[int, int]] = {}
        for tag in tags:
            key, floor = _baseline(tag.platform)
            if (
                key is not None
                and floor is not None
                and (key not in per_wheel or floor < per_wheel[key])
            ):
                per_wheel[key] = floor
        for key, floor in per_wheel.items():
            if key not in lowest or floor < lowest[key]:
                lowest[key] = floor
    return lowest


def _baseline(platform: str) -> tuple[tuple[str, str] | None, tuple[int, int] | None]:
    for legacy, floor in _LEGACY_MANYLINUX.items():
        if platform.startswith(legacy + "_"):
            return ("glibc", platform[len(legacy) + 1 :]), floor
    found = _MANYLINUX.fullmatch(platform)
    if found:
        return ("glibc", found.group(3)), (int(found.group(1)), int(found.group(2)))
    found = _MACOS.fullmatch(platform)
    if found:
        return ("macOS", found.group(3)), (int(found.group(1)), int(found.group(2)))
    return None, None


def wheel_changes(change: PackageChange, new_lock: Lock) -> list[EnvironmentFinding]:
    old, new = change.old, change.new
    if old is None or new is None or not old.wheels or not new.wheels:
        return []
    named = f"{new.name} {old.version} -> {new.version}" + (
        f" [{change.transition.variant}]" if change.transition.variant else ""
    )
    return _lost_pythons(named, old, new, new_lock) + list(_raised(named, old, new))


def _lost_pythons(named: str, old: Pin, new: Pin, new_lock: Lock) -> list[EnvironmentFinding]:
    before, after = pythons(old), pythons(new)
    if before is None or after is None:
        return []
    lost = sorted(before - after, key=lambda y: int(y.split(".")[1]))
    if not lost:
        return []
    admitted = python_specifier(new_lock.python)
    still = [y for y in lost if admitted is None or admitted.contains(y + ".0", prereleases=True)]
    listed = ", ".join(lost)
    message = (
        f"{named}: the lock lists no wheel for Python {listed} any more ({old.version} had them)"
    )
    if still:
        message += f"; the lock still admits Python {', '.join(still)}, where the install fails"
    else:
        message += "; the lock no longer admits it either: drop it from CI and deployments"
    return [
        EnvironmentFinding(
            "python-wheels-dropped", "high" if still else "low", message, new.name, line=new.line
        )
    ]


def _raised(named: str, old: Pin, new: Pin) -> Iterable[EnvironmentFinding]:
    before, after = baselines(old), baselines(new)
    for key in sorted(before.keys() & after.keys()):
        system, arch = key
        if after[key] <= before[key]:
            continue
        was, now = ".".join(map(str, before[key])), ".".join(map(str, after[key]))
        if system == "glibc":
            kind = "glibc-baseline-raised"
            what = f"Linux {arch} wheels need glibc {now} (manylinux_{now.replace('.', '_')}), {old.version}'s glibc {was}"
        else:
            kind = "macos-baseline-raised"
            what = f"macOS {arch} wheels need macOS {now}, {old.version}'s macOS {was}"
        yield EnvironmentFinding(
            kind,
            "medium",
            f"{named}: {what}; older systems cannot install it",
            new.name,
            line=new.line,
        )
