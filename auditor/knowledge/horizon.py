"""The horizon: the newest release of each package whose changes the knowledge base reviewed.

A bump that reaches past it, or moves a torch-family package the knowledge base has no entries
for, crosses changes nobody checked: it is reported as `beyond-knowledge`, a medium finding,
never passed over as a clean result."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from auditor.knowledge.entry import release
from auditor.lockfiles.interface import REVIEWED_FAMILY
from auditor.models import EnvironmentFinding, Transition

FILE = "horizon.toml"  # at the root of the knowledge directory
_FIELDS = {"release", "reviewed"}

Horizon = Mapping[str, Version]


def parse_horizon(raw: dict[str, Any], source: str) -> tuple[dict[str, Version], list[str]]:
    """`[torch] release = "2.15.0"  reviewed = "…"` per package; every problem found."""
    horizon: dict[str, Version] = {}
    problems = []
    for package, table in raw.items():
        where = f"{source}: {package}"
        if not isinstance(table, dict):
            problems.append(f"{where}: expected a table with release and reviewed")
            continue
        if canonicalize_name(package) != package:
            problems.append(f"{where}: write the package's canonical name, {canonicalize_name(package)!r}")
        missing, unknown = _FIELDS - table.keys(), table.keys() - _FIELDS
        if missing or unknown:
            problems += [f"{where}: missing {key}" for key in sorted(missing)]
            problems += [f"{where}: unknown key {key!r}" for key in sorted(unknown)]
            continue
        if not isinstance(table["reviewed"], str) or not table["reviewed"].strip():
            problems.append(f"{where}.reviewed: say what was reviewed up to this release")
        try:
            horizon[package] = Version(table["release"])
        except (InvalidVersion, TypeError):
            problems.append(f"{where}.release: invalid version {table['release']!r}")
    return horizon, problems


def past(transition: Transition, horizon: Horizon) -> tuple[Version, ...]:
    """The transition's endpoints beyond its package's horizon (a later patch release too)."""
    newest = horizon.get(transition.package)
    ends = [v for v in (transition.old, transition.new) if v is not None]
    if newest is None:
        return tuple(ends)
    return tuple(v for v in ends if release(v) > newest)


def moves(transition: Transition) -> bool:
    return transition.direction in ("upgrade", "downgrade")


def beyond(
    transitions: Iterable[Transition], horizon: Horizon
) -> tuple[tuple[EnvironmentFinding, ...], tuple[str, ...]]:
    """One medium finding per moving package whose move the knowledge base cannot vouch for,
    and the short note every format lists for it."""
    findings, notes = [], []
    for t in transitions:
        if not moves(t) or (t.package not in horizon and t.package not in REVIEWED_FAMILY):
            continue
        if not past(t, horizon):
            continue
        where = f" [{t.variant}]" if t.variant else ""
        move = f"{t.package} {t.old} -> {t.new}{where}"
        if t.package in horizon:
            newest = horizon[t.package]
            message = (
                f"{move}: not reviewed past {newest}, the newest {t.package} release the knowledge "
                f"base covers; changes after it are not in this report"
            )
            notes.append(f"{t.package}: not reviewed past {newest} (the knowledge base's horizon)")
        else:
            message = f"{move}: not reviewed: the knowledge base has no reviewed entry for {t.package}"
            notes.append(f"{t.package}: not reviewed (the knowledge base has no reviewed entry for it)")
        findings.append(EnvironmentFinding("beyond-knowledge", "medium", message, t.package))
    return tuple(dict.fromkeys(findings)), tuple(dict.fromkeys(notes))
