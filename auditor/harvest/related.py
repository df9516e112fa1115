"""What a candidate means given the other candidates of its package, applied wherever shipped or
freshly harvested candidates are read (`relate`).

- A default that becomes a string sentinel the release's own code tests in a deprecation guard
  (`verbose='deprecated'`, and in the same file a warning `when verbose != 'deprecated'`) is a
  deprecation of passing the argument, not a new default: a call that leaves it out behaves as
  before; one that passes it warns. The candidate becomes that deprecation (`deprecation-begins`
  with the guard; the id stays, it names the harvested fact).
- A default whose old and new spellings are one value (`same_value`, read again here so that a
  harvest shipped before a new spelling rule still drops it) is no change.
- A default that was torch.optim's `required` (`SGD(params, lr=required)` -> `lr=0.001`) made
  every param group without the value raise: no call that ran relied on it, so the new default
  changes nothing a working call does; the candidate is waived (`_required`).
- A default that was None (`operator_export_type=None` -> `OperatorExportTypes.ONNX`) was a
  sentinel the body replaced; with what, the signatures do not show, so neither do they show a
  change (`unshown_default`): the candidate gets no generated matcher and is left to be curated
  (as a default that becomes None is).

At harvest time, with every release's surface (`restored`): a symbol removed in one release and
back in a later one (`SequenceParallel`, gone in 2.2, back in 2.3), a parameter that comes back,
a default that returns to its old value, is undone there: the candidate says `until` that release,
and a move that crosses both sees no change (`SpecChange.until`). A deprecation ends, the same
way, in the first later release whose code no longer warns there (the symbol or the parameter
removed, the warning dropped). The mirror (`appeared`): a
symbol or parameter removed in one release that first appeared in a later release than the
first one able to show it (`torch.nested_tensor`, in 1.12 only) says `since` that release: from
an older release, a line that uses it failed before the move as it does after (`SpecChange.since`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import replace

from packaging.version import Version

from auditor.harvest.candidates import class_origins, inherited, plain_sites, same_value
from auditor.harvest.model import Candidate, Release, Symbol

_DEFAULT = re.compile(r"default of (?P<name>\w+): (?P<old>.*) -> (?P<new>.*)")
_DEPRECATIONS = ("deprecation-begins", "warning-category-changed")


def relate(candidates: list[Candidate]) -> list[Candidate]:
    sentinels = _sentinel_guards(candidates)
    out = []
    for c in candidates:
        if c.kind == "default-changed":
            defaults = _defaults(c)
            if defaults is not None and same_value(*defaults):
                continue
            c = _as_deprecation(c, sentinels)
            if (
                c.kind == "default-changed"
                and c.waived is None
                and defaults is not None
                and defaults[0] == "required"
            ):
                c = replace(c, waived=_required(c))
        out.append(c)
    return out


def _defaults(c: Candidate) -> tuple[str, str] | None:
    found = _DEFAULT.fullmatch(c.detail)
    if found is None or found["name"] != c.parameter or " -> " in found["old"] + found["new"]:
        return None  # a default whose text holds " -> " cannot be split back
    return found["old"], found["new"]


def _required(c: Candidate) -> str:
    where = (
        f" ({c.evidence[0].release} {c.evidence[0].file}:{c.evidence[0].line})"
        if c.evidence
        else ""
    )
    return (
        f"the old default of {c.parameter} was torch.optim's `required`{where}: a param group without "
        f"{c.parameter} raised, so every call that ran gave it (as a keyword or in each group); the new "
        "default only applies where the old one raised"
    )


def _sentinel_guards(
    candidates: list[Candidate],
) -> dict[tuple[str, str, str, str, str], Candidate]:
    """The deprecation candidates whose guard is `name != 'text'` (or `is not`), by release pair,
    evidence file, name and text."""
    out = {}
    for c in candidates:
        if c.kind not in _DEPRECATIONS or c.guard is None or c.conditional or not c.evidence:
            continue
        tested = _tested_against(c.guard)
        if tested is not None:
            out[(c.before, c.release, c.evidence[-1].file, tested[0], tested[1])] = c
    return out


def _tested_against(guard: str) -> tuple[str, str] | None:
    try:
        test = ast.parse(guard, mode="eval").body
    except SyntaxError:
        return None
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.NotEq, ast.IsNot))
        and isinstance(test.left, ast.Name)
    ):
        return None
    right = test.comparators[0]
    if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
        return None
    return test.left.id, right.value


def _as_deprecation(
    c: Candidate, sentinels: dict[tuple[str, str, str, str, str], Candidate]
) -> Candidate:
    defaults = _defaults(c)
    if defaults is None or c.parameter is None or not c.evidence:
        return c
    try:
        new = ast.literal_eval(defaults[1])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return c
    if not isinstance(new, str):
        return c
    site = sentinels.get((c.before, c.release, c.evidence[-1].file, c.parameter, new))
    if site is None or site.guard is None:
        return c
    detail = (
        f"{site.category} when {site.guard}: the default of {c.parameter} is now the sentinel "
        f"{defaults[1]} (was {defaults[0]}), passing {c.parameter} warns"
    )
    return replace(
        c,
        kind="deprecation-begins",
        guard=site.guard,
        category=site.category,
        detail=detail,
        evidence=(*c.evidence, *site.evidence),
    )


def restored(
    candidates: list[Candidate], releases: tuple[Release, ...] | list[Release]
) -> list[Candidate]:
    """The candidates with `until` set where a later release undoes them (releases oldest first)."""
    order = {r.version: index for index, r in enumerate(releases)}
    surfaces = [r.by_name() for r in releases]
    warned = [{(s.symbol, s.guard) for s in plain_sites(r)} for r in releases]
    out = []
    for c in candidates:
        start = order.get(c.release)
        if start is None or c.until is not None:
            out.append(c)
            continue
        back = next(
            (
                releases[i].version
                for i in range(start + 1, len(releases))
                if _undone(c, surfaces[i], warned[i])
            ),
            None,
        )
        out.append(replace(c, until=back) if back else c)
    return out


def _undone(c: Candidate, surface: dict[str, Symbol], warned: set[tuple[str, str | None]]) -> bool:
    """Whether a release no longer shows `c`: its `surface`, and the (symbol, guard) it `warned` on."""
    if c.kind in _DEPRECATIONS:
        return (c.symbol, c.guard) not in warned
    found = surface.get(c.symbol)
    if found is None:
        return False
    if c.kind == "symbol-removed":
        return True
    names = {p.name: p for p in found.params}
    if c.kind in ("parameter-removed", "parameter-renamed") and c.parameter:
        return c.parameter in names
    if c.kind == "default-changed" and c.parameter in names:
        defaults = _defaults(c)
        now = names[c.parameter].default
        return defaults is not None and now is not None and same_value(defaults[0], now)
    return False


REMOVALS = (
    "symbol-removed",
    "parameter-removed",
    "parameter-renamed",
)  # a renamed one's old name is gone too
HAD, LACKED, UNREADABLE = "had", "lacked", "unreadable"


def appeared(
    candidates: list[Candidate], releases: Sequence[Release], listed: Sequence[Version] = ()
) -> list[Candidate]:
    """The removals with `since` set to the first release that may have had what they remove
    (releases oldest first). Every release read before it is known to lack it, or cannot show it
    at all and comes before the first one that can (torch 1.0 ships no stubs: the C functions of
    1.1 on are not known to be new, nor to be old; such releases are treated as the releases
    before the harvest are). A release that cannot show it after one that can, or one that shows
    only that it may have it (a `**kwargs`, a `__getattr__`), counts as having had it. `listed`
    (every release of the index in the range, oldest first) moves `since` back to the first
    release after the last one known to lack it, so that a release not read (a failed download,
    a patch release left out) is never assumed to lack it. A removal that the first release able
    to show it had has no `since`: it may be older than the harvest."""
    order = {r.version: index for index, r in enumerate(releases)}
    shown = [_Shown(r) for r in releases]
    out = []
    for c in candidates:
        end = order.get(c.before)
        if c.kind not in REMOVALS or end is None or c.since is not None:
            out.append(c)
            continue
        states = [shown[i].state(c, shown[end]) for i in range(end)] + [HAD]
        start = next(i for i, state in enumerate(states) if state != UNREADABLE)
        first = next(i for i in range(start, end + 1) if states[i] != LACKED)
        if first == start:
            out.append(c)
            continue
        lacking = Version(releases[first - 1].version)
        since = min([v for v in listed if v > lacking] + [Version(releases[first].version)])
        out.append(replace(c, since=str(since)))
    return out


class _Shown:
    """What one release shows of a name, read lazily: its surface, what users still reach
    through bases and module bindings, its `__getattr__` hooks, and which namespaces its stubs
    describe."""

    def __init__(self, release: Release) -> None:
        self.release = release
        self._surface: dict[str, Symbol] | None = None
        self._classes: dict[str, Symbol] = {}
        self._stubbed: set[str] | None = None
        self._hooks: set[str] | None = None

    @property
    def surface(self) -> dict[str, Symbol]:
        if self._surface is None:
            self._surface = self.release.by_name()
            self._classes = class_origins(self._surface)
        return self._surface

    def stubbed(self, owner: str) -> bool:
        """Whether a stub of this release defines names of the module or class `owner` (its
        functions and methods written in C): without one, the release cannot show them."""
        if self._stubbed is None:
            self._stubbed = {
                s.name.rpartition(".")[0] for s in self.release.symbols if s.source != "py"
            }
        return owner in self._stubbed

    def state(self, c: Candidate, before: _Shown) -> str:
        """Whether a call of `c.symbol` (with `c.parameter`) could have worked here, as far as
        the surface shows (`before`: the release the candidate removes it from)."""
        found = self._find(c.symbol, before)
        if found is None or isinstance(found, str):
            return found or LACKED
        if c.kind == "symbol-removed" or found.kind == "attribute" or not found.params:
            return HAD  # the name, or a signature the release does not show
        return (
            HAD
            if any(p.name == c.parameter or p.kind == "var-keyword" for p in found.params)
            else LACKED
        )

    def _find(self, name: str, before: _Shown) -> Symbol | str | None:
        """The symbol `name` reaches here; HAD or UNREADABLE when it may be here unseen; None
        when it is known not to be."""
        surface = self.surface
        found = surface.get(name) or inherited(name, surface, self._classes)
        if found is not None:
            return found
        owner = name.rpartition(".")[0]
        if not owner:
            return None
        if self._hooks is None:
            self._hooks = {s.symbol for s in self.release.sites if s.kind == "getattr"}
        holder = surface.get(owner)
        if holder is None:  # its module or class is not here either: whatever that one is, so is it
            above = self._find(owner, before)
            return (
                HAD if isinstance(above, Symbol) else above
            )  # a binding of another kind: its members unseen
        if name in self._hooks or holder.dynamic:
            return HAD
        return UNREADABLE if before.stubbed(owner) and not self.stubbed(owner) else None


def unshown_default(c: Candidate) -> str | None:
    """Why a default change shows no change of behaviour in its evidence, or None."""
    if c.kind != "default-changed":
        return None
    defaults = _defaults(c)
    if defaults is not None and defaults[0] == "None":
        return (
            "the old default is None, a sentinel the body replaced (operator_export_type=None meant ONNX): "
            "the evidence does not show that the value used changes"
        )
    return None
