"""The installs a lock tells apart, and a short name for each set of them.

A lock that pins a package more than once does so per install: per platform (markers, conda
platforms), per extra (uv forks by conflicting extras: `extra == 'extra-6-myproj-rocm'`) and per
Python. Each pin's marker is evaluated on a grid of installs (platform x extras x Python), so two
pins cover the same installs whatever their markers' spelling, and a set of installs is named
briefly: "default", "linux x86_64, extra rocm", "macOS arm64", "python < 3.10".

An install activates a set of extras, and a uv marker tests each: `extra == 'extra-6-app-cpu' and
extra == 'extra-3-lib-cpu'` holds where both are active. The grid's installs activate no extra, or
one of the extras the markers name together with those it activates (the `cpu` extra of `app`
asking for `lib[cpu]`); never two extras of one conflict set, an install uv refuses. uv also
resolves combinations no extra activates (`app`'s `cu130` with `lib`'s `cpu`): a pin only those
get is installed nowhere the grid knows."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property

from packaging.markers import (
    InvalidMarker,
    Marker,
    UndefinedComparison,
    UndefinedEnvironmentName,
    default_environment,
)
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from auditor.models import Lock, Pin

# The platforms a grid tells apart, each with its marker variables, grouped by family.
PLATFORMS: tuple[tuple[str, str, dict[str, str]], ...] = (
    (
        "linux",
        "x86_64",
        {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64"},
    ),
    (
        "linux",
        "aarch64",
        {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "aarch64"},
    ),
    (
        "macOS",
        "arm64",
        {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "arm64"},
    ),
    (
        "macOS",
        "x86_64",
        {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "x86_64"},
    ),
    (
        "windows",
        "x86_64",
        {"sys_platform": "win32", "platform_system": "Windows", "platform_machine": "AMD64"},
    ),
)
PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")
# conda platforms (`linux-64`, `osx-arm64`): the family, and the machine where it is one the grid knows
_CONDA = {"linux": "linux", "osx": "macOS", "win": "windows"}
_CONDA_MACHINES = {"64": "x86_64", "aarch64": "aarch64", "arm64": "arm64"}
_EXTRA = re.compile(r"""\bextra\s*(?:==|!=)\s*(?:'([^']*)'|"([^"]*)")""")
_EXTRA_TEST = re.compile(r"""\bextra\s*(==|!=)\s*('[^']*'|"[^"]*")""")
_PYTHON_VARIABLES = ("python_version", "python_full_version")
_PLATFORM_VARIABLES = (
    "sys_platform",
    "platform_system",
    "platform_machine",
    "os_name",
    "platform_release",
)
_UV_ENCODED = re.compile(r"(extra|group)-(\d+)-(.+)")
Extras = tuple[str, ...]  # the extras an install activates, the one it is named by first


def extras_named(marker: str) -> set[str]:
    """The extras a marker compares `extra` with."""
    return {m.group(1) or m.group(2) for m in _EXTRA.finditer(marker)} - {""}


def extra_label(value: str) -> str:
    """An extra as users name it: uv writes a conflicting extra `cpu` of `myproj` as
    `extra-6-myproj-cpu` (and a dependency group `dev` as `group-6-myproj-dev`)."""
    found = _UV_ENCODED.fullmatch(value)
    if found:
        size, rest = int(found.group(2)), found.group(3)
        if len(rest) > size + 1 and rest[size] == "-":
            return ("extra " if found.group(1) == "extra" else "group ") + rest[size + 1 :]
    return f"extra {value}"


class Grid:
    """The installs of two locks: every platform, every Python either lock admits, and no extra
    or one of the extras their markers name (with the extras it activates). A set of installs is
    a bit mask over `points`."""

    def __init__(self, locks: Sequence[Lock]):
        named = sorted(
            {e for lock in locks for p in lock.pins if p.marker for e in extras_named(p.marker)}
        )
        activates: dict[str, set[str]] = {}
        for lock in locks:
            for extra, others in lock.activates:
                activates.setdefault(extra, set()).update(others)
        conflicts = {c for lock in locks for c in lock.conflicts}
        installs = (_activated(e, activates) for e in named)
        self.extras: tuple[Extras, ...] = (
            (),
            *(i for i in installs if all(len(c.intersection(i)) < 2 for c in conflicts)),
        )
        self._combined = bool(conflicts or activates)
        self.pythons = _pythons(lock.python for lock in locks)
        self.points = tuple(
            (platform, extra, python)
            for platform in range(len(PLATFORMS))
            for extra in self.extras
            for python in self.pythons
        )
        self.full = (1 << len(self.points)) - 1
        self._covers: dict[tuple[str | None, str | None], int] = {}

    @cached_property
    def _base(self) -> dict[str, str]:
        env = {key: str(value) for key, value in default_environment().items()}
        env.update(
            implementation_name="cpython", platform_python_implementation="CPython", os_name="posix"
        )
        return env

    def admitted(self, lock: Lock) -> int:
        """The installs whose Python the lock admits (all, when it does not say)."""
        specifier = python_specifier(lock.python)
        if specifier is None:
            return self.full
        return self._mask(lambda p, e, y: specifier.contains(y + ".0", prereleases=True))

    def cover(self, pin: Pin) -> int:
        """The installs that get this pin: where its marker holds, on its conda platform."""
        key = (pin.marker, pin.platform)
        if key not in self._covers:
            self._covers[key] = self._platforms(pin.platform) & self._holds(pin.marker)
        return self._covers[key]

    def unreached(self, pin: Pin) -> bool:
        """A pin no install gets where extras conflict or activate others: uv resolved it for a
        combination of extras that no extra activates."""
        return self._combined and self.cover(pin) == 0

    def _platforms(self, conda: str | None) -> int:
        if conda is None:
            return self.full
        family, _, machine = conda.lower().partition("-")
        wanted = _CONDA.get(family)
        if wanted is None:
            return self.full
        machines = {m for f, m, _ in PLATFORMS if f == wanted}
        if _CONDA_MACHINES.get(machine) in machines:
            machines = {_CONDA_MACHINES[machine]}
        return self._mask(lambda p, e, y: PLATFORMS[p][0] == wanted and PLATFORMS[p][1] in machines)

    def _holds(self, marker: str | None) -> int:
        if marker is None:
            return self.full
        try:
            parsed = Marker(_EXTRA_TEST.sub(_as_member, marker))
        except InvalidMarker:
            return self.full
        # Only the dimensions the marker reads are evaluated (of extras, those it names): the
        # others copy the result.
        named = extras_named(marker)
        reads_python = any(v in marker for v in _PYTHON_VARIABLES)
        reads_platform = any(v in marker for v in _PLATFORM_VARIABLES)
        results: dict[tuple[int, Extras, str], bool] = {}
        mask = 0
        for bit, (platform, extras, python) in enumerate(self.points):
            key = (
                platform if reads_platform else 0,
                tuple(e for e in extras if e in named),
                python if reads_python else self.pythons[0],
            )
            if key not in results:
                env: dict[str, str | set[str]] = dict(self._base, **PLATFORMS[platform][2])
                env.update(python_version=key[2], python_full_version=key[2] + ".0", extra="")
                env.update(extras={canonicalize_name(e) for e in key[1]}, dependency_groups=set())
                if PLATFORMS[platform][0] == "windows":
                    env["os_name"] = "nt"
                try:
                    results[key] = parsed.evaluate(env, context="lock_file")
                except (UndefinedComparison, UndefinedEnvironmentName):
                    results[key] = True
            if results[key]:
                mask |= 1 << bit
        return mask

    def _mask(self, keep: Callable[[int, Extras, str], bool]) -> int:
        return sum(1 << bit for bit, point in enumerate(self.points) if keep(*point))

    # --- names ---------------------------------------------------------------------------------

    def name(self, mask: int) -> str | None:
        """A short name of a set of installs; None for every install of the grid."""
        if mask == self.full:
            return None
        if mask == 0:
            # markers that hold on no platform the grid knows, or (uv) only with extras that no
            # extra activates together
            return "other platforms or extras" if self._combined else "other platforms"
        by_extra: dict[Extras, set[tuple[int, str]]] = {e: set() for e in self.extras}
        for bit, (platform, extras, python) in enumerate(self.points):
            if mask >> bit & 1:
                by_extra[extras].add((platform, python))
        # extras covering the same platforms and Pythons are named together
        groups: dict[frozenset[tuple[int, str]], list[Extras]] = {}
        for extras, covered in by_extra.items():
            if covered:
                groups.setdefault(frozenset(covered), []).append(extras)
        clauses = []
        for where, named in groups.items():
            for platforms, pythons in self._products(where):
                parts = [
                    self._platform_part(platforms),
                    self._extra_part(named),
                    self._python_part(pythons),
                ]
                clauses.append(", ".join(p for p in parts if p) or "default")
        return "; ".join(clauses)

    def _products(
        self, where: frozenset[tuple[int, str]]
    ) -> list[tuple[set[int], tuple[str, ...]]]:
        """`where` as platforms x Pythons blocks: platforms with the same Pythons together."""
        by_platform: dict[int, tuple[str, ...]] = {}
        for platform in range(len(PLATFORMS)):
            pythons = tuple(y for y in self.pythons if (platform, y) in where)
            if pythons:
                by_platform[platform] = pythons
        blocks: dict[tuple[str, ...], set[int]] = {}
        for platform, pythons in by_platform.items():
            blocks.setdefault(pythons, set()).add(platform)
        return [(platforms, pythons) for pythons, platforms in blocks.items()]

    def _extra_part(self, extras: list[Extras]) -> str:
        if len(extras) == len(self.extras):
            return ""
        # an install is named by its extra, not by those it activates
        named = list(dict.fromkeys(extra_label(e[0]) for e in extras if e))
        if len(named) > 1 and all(n.startswith("extra ") for n in named):
            named = ["extras " + ", ".join(n[6:] for n in named)]
        return " and ".join((["default"] if () in extras else []) + named)

    def _platform_part(self, platforms: set[int]) -> str:
        if len(platforms) == len(PLATFORMS):
            return ""
        names = []
        for family in dict.fromkeys(f for f, _, _ in PLATFORMS):
            members = [i for i, (f, _, _) in enumerate(PLATFORMS) if f == family]
            if all(i in platforms for i in members):
                names.append(family)
            else:
                names += [f"{family} {PLATFORMS[i][1]}" for i in members if i in platforms]
        return " and ".join(names)

    def _python_part(self, pythons: tuple[str, ...]) -> str:
        grid = self.pythons
        if pythons == grid:
            return ""
        start = grid.index(pythons[0])
        if grid[start : start + len(pythons)] != pythons:
            return "python " + ", ".join(pythons)
        end = start + len(pythons)
        if start == 0:
            return f"python < {grid[end]}"
        if end == len(grid):
            return f"python >= {pythons[0]}"
        return f"python >= {pythons[0]}, < {grid[end]}"


def _as_member(test: re.Match[str]) -> str:
    """`extra == 'x'` as a test of the install's set of extras: `'x' in extras`."""
    return f"{test.group(2)} {'in' if test.group(1) == '==' else 'not in'} extras"


def _activated(extra: str, activates: dict[str, set[str]]) -> Extras:
    """`extra` and every extra it activates, directly or through another."""
    found = [extra]
    for current in found:
        found += sorted(activates.get(current, set()) - set(found))
    return tuple(found)


def _pythons(requirements: Iterable[str | None]) -> tuple[str, ...]:
    """The Pythons any of the locks admits; all of PYTHONS when one does not say."""
    admitted: set[str] = set()
    for text in requirements:
        specifier = python_specifier(text)
        if specifier is None:
            return PYTHONS
        admitted |= {y for y in PYTHONS if specifier.contains(y + ".0", prereleases=True)}
    return tuple(y for y in PYTHONS if y in admitted) or PYTHONS


def python_specifier(text: str | None) -> SpecifierSet | None:
    if not text:
        return None
    if re.fullmatch(r"\d+\.\d+(\.\d+)?", text.strip()):  # the interpreter a lock was made for
        return SpecifierSet(f"=={'.'.join(text.strip().split('.')[:2])}.*")
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        return None
