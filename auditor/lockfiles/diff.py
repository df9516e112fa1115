"""What changed between two locks: one change per package and variant, torch family first.

A name locked more than once (uv forks, per-platform conda pins, markers) is paired across the
two locks by the installs each pin covers (`variants.Grid`), so `torch 2.6.0+cu124 [linux]` is
compared with `torch 2.7.0+cu128 [linux]`, not with the macOS pin, however the markers are
spelled; pins that cover the same installs are paired by environment and source."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from auditor.knowledge.entry import SpecChange, release
from auditor.lockfiles.changes import PackageChange, Selection, environment_of, family_order, select
from auditor.lockfiles.compat import check
from auditor.lockfiles.interface import TORCH_FAMILY
from auditor.lockfiles.pipfile import FORMAT as PIPFILE_FORMAT
from auditor.lockfiles.variants import Grid
from auditor.models import EnvironmentFinding, Lock, Pin, Transition


@dataclass(frozen=True, slots=True)
class LockDiff:
    packages: tuple[Transition, ...]  # every package that changed, torch family first
    environment: tuple[EnvironmentFinding, ...] = ()
    changes: tuple[PackageChange, ...] = ()  # the same changes, with how and from which pins
    notes: tuple[str, ...] = ()  # what the comparison left unchecked

    def transition(self, package: str) -> tuple[Transition, ...]:
        return tuple(t for t in self.packages if t.package == package)


# --- pairing and comparing -----------------------------------------------------------------------


def _pair(olds: list[Pin], news: list[Pin]) -> list[tuple[Pin | None, Pin | None]]:
    olds, news = list(olds), list(news)
    pairs: list[tuple[Pin | None, Pin | None]] = []

    def match(key: Callable[[Pin], object]) -> None:
        for old in list(olds):
            new = next((n for n in news if key(n) == key(old)), None)
            if new is not None:
                pairs.append((old, new))
                olds.remove(old)
                news.remove(new)

    match(lambda p: (environment_of(p), p.source, p.groups))
    match(lambda p: (environment_of(p), p.source))
    match(environment_of)
    if len(olds) == 1 and len(news) == 1:
        pairs.append((olds.pop(), news.pop()))
    match(lambda p: p.source)
    pairs += [(old, None) for old in olds] + [(None, new) for new in news]
    return pairs


def _kinds(old: Pin | None, new: Pin | None, same_format: bool) -> tuple[str, ...]:
    if old is None or new is None:
        return ("added",) if old is None else ("removed",)
    kinds: list[str] = []
    if old.version is not None and new.version is not None:
        if release(new.version) > release(old.version):
            kinds.append("upgraded")
        elif release(new.version) < release(old.version):
            kinds.append("downgraded")
        if old.version.local != new.version.local:
            kinds.append("local-label")
    elif (old.version is None) != (new.version is None):  # still listed on both sides
        kinds.append("pinned" if old.version is None else "unpinned")
    if old.build and new.build and old.build != new.build:
        kinds.append("build")
    if old.source != new.source and (same_format or (old.source and new.source)):
        kinds.append("source")
    return tuple(kinds)


def _pair_by_installs(
    olds: list[Pin], news: list[Pin], grid: Grid, admitted: tuple[int, int]
) -> list[tuple[Pin | None, Pin | None, int]]:
    """Each install gets at most one pin of a name from each lock (else `_pair` decides among
    those that cover it): the pairs, each with the installs where old gives way to new. An
    install whose Python a lock does not admit has nothing to lose or gain from that lock."""
    if (
        len(olds) <= 1
        and len(news) <= 1
        and all(p.marker is None and p.platform is None for p in olds + news)
    ):
        return [(o, n, grid.full) for o, n in _pair(olds, news)]
    old_covers, new_covers = [grid.cover(p) for p in olds], [grid.cover(p) for p in news]
    cells: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = defaultdict(int)
    for bit in range(len(grid.points)):
        before = tuple(i for i, mask in enumerate(old_covers) if mask >> bit & 1)
        after = tuple(i for i, mask in enumerate(new_covers) if mask >> bit & 1)
        if (
            (before and after)
            or (before and admitted[1] >> bit & 1)
            or (after and admitted[0] >> bit & 1)
        ):
            cells[(before, after)] |= 1 << bit
    pairs: dict[tuple[int | None, int | None], int] = defaultdict(int)
    for (before, after), mask in cells.items():
        for old, new in _pair([olds[i] for i in before], [news[i] for i in after]):
            key = (
                None if old is None else next(i for i in before if olds[i] is old),
                None if new is None else next(i for i in after if news[i] is new),
            )
            pairs[key] |= mask
    # pins whose markers hold on no install of the grid (another platform) pair as written
    uncovered = _pair(
        [p for p, mask in zip(olds, old_covers) if not mask],
        [p for p, mask in zip(news, new_covers) if not mask],
    )
    return [
        (None if o is None else olds[o], None if n is None else news[n], mask)
        for (o, n), mask in pairs.items()
    ] + [(o, n, 0) for o, n in uncovered]


def _variants(
    pairs: list[tuple[Pin | None, Pin | None, int]], grid: Grid, word: str
) -> list[str | None]:
    """Each pair's installs, named; pairs that share installs (a name locked once per group,
    as pip's `torch` beside conda's `pytorch`) are told apart by their groups, each named as
    its lock names it (`word`: a Pipfile.lock's are categories)."""
    names = [grid.name(installs) for _, _, installs in pairs]
    told = []
    for (old, new, _), name in zip(pairs, names):
        pin = new or old
        groups = [
            f"{word} {g}" for g in (pin.groups if pin else ()) if g not in ("main", "default")
        ]
        shared = names.count(name) > 1 and groups
        told.append(", ".join(filter(None, [name, *groups])) if shared else name)
    return told


def package_changes(
    old: Iterable[Pin],
    new: Iterable[Pin],
    same_format: bool,
    grid: Grid | None = None,
    admitted: tuple[int, int] | None = None,
    group_word: str = "group",
) -> list[PackageChange]:
    """`admitted`: the installs whose Python each lock admits (default: all); `group_word`: what
    the locks call a group of pins."""
    before: dict[str, list[Pin]] = defaultdict(list)
    after: dict[str, list[Pin]] = defaultdict(list)
    for pin in old:
        before[pin.name].append(pin)
    for pin in new:
        after[pin.name].append(pin)
    grid = grid or Grid(())
    admitted = admitted or (grid.full, grid.full)
    changes = []
    for name in before.keys() | after.keys():
        pairs = _pair_by_installs(before[name], after[name], grid, admitted)
        variants = _variants(pairs, grid, group_word)
        for (old_pin, new_pin, _), variant in zip(pairs, variants):
            kinds = _kinds(old_pin, new_pin, same_format)
            if not kinds:
                continue
            anchor = new_pin or old_pin
            assert anchor is not None  # _pair never yields (None, None)
            transition = Transition(
                name,
                old_pin.version if old_pin else None,
                new_pin.version if new_pin else None,
                environment_of(anchor),
                unpinned=old_pin is not None and new_pin is not None,
                variant=variant,
            )
            changes.append(PackageChange(transition, kinds, old_pin, new_pin))
    changes.sort(
        key=lambda c: (
            family_order(c.transition.package),
            c.transition.variant or "",
            c.transition.environment or "",
            str(c.transition.old),
            str(c.transition.new),
        )
    )
    return changes


def _borrow_markers(blind: list[Pin], seeing: list[Pin]) -> tuple[list[Pin], list[Pin]]:
    """A lock that records no markers (poetry.lock before 2.1) installs a package wherever the
    project's dependencies ask for it, which the other lock's marker for the same package states:
    each blind pin takes it, so a marker written for the first time is not read as a removal."""
    markers: dict[str, set[str | None]] = defaultdict(set)
    for pin in seeing:
        markers[pin.name].add(pin.marker)
    taken = [
        replace(p, marker=next(iter(markers[p.name])))
        if p.marker is None and len(markers[p.name]) == 1
        else p
        for p in blind
    ]
    return taken, seeing


def diff_locks(
    old: Lock,
    new: Lock,
    selection: Selection | None = None,
    knowledge: Iterable[SpecChange] = (),
) -> LockDiff:
    selection = selection or Selection()
    old_pins, new_pins = select(old, selection), select(new, selection)
    if old.markers != new.markers:  # where each pin installs is known on one side only
        old_pins, new_pins = (
            _borrow_markers(old_pins, new_pins)
            if new.markers
            else _borrow_markers(new_pins, old_pins)[::-1]
        )
    grid = Grid((old, new))
    admitted = (grid.admitted(old), grid.admitted(new))
    word = "category" if new.format == PIPFILE_FORMAT else "group"
    changes = package_changes(old_pins, new_pins, old.format == new.format, grid, admitted, word)
    findings = check(old, new, old_pins, new_pins, changes, selection, tuple(knowledge), grid)
    unreached = sum(
        c.transition.package in TORCH_FAMILY and c.new is not None and grid.unreached(c.new)
        for c in changes
    )
    said = (
        f"{new.path}: {unreached} torch-family move(s) are locked only for combinations of extras "
        'that no extra activates (uv resolves them all; named "other platforms or extras"): their '
        "wheels and builds are not checked"
    )
    return LockDiff(
        packages=tuple(c.transition for c in changes),
        environment=tuple(findings),
        changes=tuple(changes),
        notes=(said,) if unreached else (),
    )
