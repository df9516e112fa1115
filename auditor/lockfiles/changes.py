"""One package's change between two locks, and the selection of one environment's pins."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.markers import (
    InvalidMarker,
    Marker,
    UndefinedComparison,
    UndefinedEnvironmentName,
    default_environment,
)

from auditor.errors import UsageError
from auditor.lockfiles.interface import TORCH_FAMILY
from auditor.lockfiles.variants import extras_named
from auditor.models import Lock, Pin, Transition


def family_order(name: str) -> tuple[int, str]:
    return (TORCH_FAMILY.index(name) if name in TORCH_FAMILY else len(TORCH_FAMILY), name)


def environment_of(pin: Pin) -> str | None:
    return pin.platform or pin.marker


@dataclass(frozen=True, slots=True)
class PackageChange:
    """One package's change in one environment; `kinds` says how it changed."""

    transition: Transition
    kinds: tuple[str, ...]
    old: Pin | None
    new: Pin | None


# --- selecting one environment -------------------------------------------------------------------

_FAMILIES = {
    "linux": "linux",
    "osx": "darwin",
    "macos": "darwin",
    "darwin": "darwin",
    "win": "win32",
    "win32": "win32",
    "windows": "win32",
}
_SYSTEMS = {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}
_MACHINES = {"aarch64": "aarch64", "arm64": "arm64", "ppc64le": "ppc64le"}  # and "64": x86-64


@dataclass(frozen=True, slots=True)
class Selection:
    """`--python-version 3.11 --platform linux-64`: keep the pins of that environment only."""

    python: str | None = None
    platform: str | None = None

    def __post_init__(self) -> None:
        if self.platform is not None and _family(self.platform) is None:
            known = "linux, darwin, win32 or a conda platform such as linux-64, osx-arm64, win-64"
            raise UsageError(f"unknown platform {self.platform!r} (use {known})")

    def marker_environment(self) -> dict[str, str]:
        env = {key: str(value) for key, value in default_environment().items()}
        env["extra"] = ""
        if self.python:
            parts = self.python.split(".")
            env["python_version"] = ".".join(parts[:2])
            env["python_full_version"] = ".".join((parts + ["0", "0"])[:3])
        family = _family(self.platform) if self.platform else None
        if family:
            env["sys_platform"], env["platform_system"] = family, _SYSTEMS[family]
            env["os_name"] = "nt" if family == "win32" else "posix"
            arch = (
                self.platform.split("-", 1)[1] if self.platform and "-" in self.platform else None
            )
            machine = (
                ("AMD64" if family == "win32" else "x86_64")
                if arch == "64"
                else _MACHINES.get(arch or "")
            )
            if machine:
                env["platform_machine"] = machine
        return env

    def selects(self, pin: Pin, env: dict[str, str]) -> bool:
        if self.platform and pin.platform and not _same_platform(self.platform, pin.platform):
            return False
        if pin.marker and (self.python or self.platform):
            try:  # with any of the extras it names: an option selects a platform, not an extra
                marker = Marker(pin.marker)
                return any(
                    marker.evaluate({**env, "extra": e})
                    for e in ("", *sorted(extras_named(pin.marker)))
                )
            except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
                return True
        return True


def _family(platform: str) -> str | None:
    return _FAMILIES.get(platform.lower().split("-", 1)[0])


def _same_platform(wanted: str, pinned: str) -> bool:
    if "-" in wanted and "-" in pinned:
        return wanted.lower() == pinned.lower()
    return _family(wanted) == _family(pinned)


def select(lock: Lock, selection: Selection) -> list[Pin]:
    env = selection.marker_environment()
    return [pin for pin in lock.pins if selection.selects(pin, env)]
