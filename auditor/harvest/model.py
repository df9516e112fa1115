"""What a harvest reads from a release and what it finds between two: frozen, plain data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

UNKNOWN_DEFAULT = "..."  # a stub's `= ...`: the default exists, its value is not written down
# In a default-changed candidate's detail: the body puts another value in for a new default of None
# (RESOLVED), or one that depends on what the call does not show (HIDDEN: another argument, self).
RESOLVED = "(the body puts "
HIDDEN = "a value the call does not show"


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: str  # positional-only, positional, var-positional, keyword-only, var-keyword
    default: str | None  # source text of the default; None: required


@dataclass(frozen=True, slots=True)
class Symbol:
    """One public name of a release: where it is defined and, for callables, its parameters."""

    name: str  # as users write it: torch.nn.functional.softmax, torch.Tensor.resize
    kind: str  # module, function, class, method, attribute
    file: str  # the wheel member that defines it
    line: int
    source: str  # "py", or the stub file the signature comes from
    params: tuple[Param, ...] = ()
    origin: str = ""  # the qualified name of its definition (torch._tensor.Tensor.resize)
    # Classes: the origins of every base class the release's own sources define, nearest first (a
    # member a user reaches through one of them is not removed from the class). Fields: a class's
    # public class-level names that are not methods (`priority: int` in a stub, `training = True`),
    # a module's public top-level bindings, imported ones included (`from .api import StateDictType`
    # still imports from the module). Neither is on the surface; both keep a name from "removed".
    bases: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    # Callables: the parameters whose default of None the body replaces with a value
    # (`if p is None: p = value`): (parameter, the value's source text, line).
    resolved: tuple[tuple[str, str, int], ...] = ()
    # Classes: why a member gone from the class may still be reached, or "": it or a base defines
    # `__getattr__` (not nn.Module's, which finds only parameters, buffers and submodules), or a
    # base of the package's own is defined in no source or stub (a C class).
    dynamic: str = ""


@dataclass(frozen=True, slots=True)
class Site:
    """Where a release's own code says that a public symbol is deprecated or removed."""

    symbol: str
    kind: str  # warning, decorator, getattr, stub (only raises), expired (a removed-name table)
    category: str  # the warning class, or "error" for stubs and expired names
    message: str
    guard: str | None  # the condition around the warning, in terms of the call's arguments
    file: str
    line: int
    via: str | None = None  # the private helper that warns on the symbol's behalf
    # Also under a condition the harvest cannot say in terms of the arguments (`if self._x:`, an
    # except clause, a helper's own test): the guard alone would match too broadly.
    conditional: bool = False


@dataclass(frozen=True, slots=True)
class Release:
    """The harvest of one wheel: its public surface and its deprecation sites."""

    package: str
    version: str
    wheel: str
    symbols: tuple[Symbol, ...]
    sites: tuple[Site, ...]
    stubs: tuple[str, ...]  # the stub files the wheel ships: a symbol from a missing one is unknown
    notes: tuple[str, ...] = ()

    def by_name(self) -> dict[str, Symbol]:
        return {s.name: s for s in self.symbols}


@dataclass(frozen=True, slots=True)
class Evidence:
    release: str
    file: str
    line: int
    message: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """A change between two consecutive releases that may need a knowledge entry."""

    id: str  # stable: package@release:kind:symbol[:parameter][:guard hash]
    package: str
    before: str
    release: str  # the release that changes
    kind: str  # symbol-removed, parameter-removed, parameter-renamed, default-changed,
    #            deprecation-begins, warning-category-changed, removal-stub-added
    symbol: str
    detail: str
    parameter: str | None = None
    guard: str | None = None
    category: str | None = None
    evidence: tuple[Evidence, ...] = ()
    symbol_kind: str | None = None  # module, function, class, method, attribute (None: unknown)
    conditional: bool = False  # the warning also depends on something the guard does not say
    params: tuple[Param, ...] = ()  # the symbol's parameters, for a guard to be read against
    until: str | None = None  # a later release that undoes it (the symbol or parameter is back)
    # Removals (of a symbol or a parameter): the release what is removed first appeared in, among
    # the harvested ones; a move from before it had nothing to lose (None: in the first one read).
    since: str | None = None
    # Set by the harvest when its own evidence shows users are not affected (the body puts the
    # old default back in for None): the one-line reason, with file and line.
    waived: str | None = None


def candidate_data(c: Candidate) -> dict[str, Any]:
    """`c` as plain JSON values (`candidate_from` reads them back)."""
    return asdict(c)


def candidate_from(data: dict[str, Any]) -> Candidate:
    """A candidate from `candidate_data`'s values; data of another shape raises KeyError or TypeError."""
    return Candidate(
        **{
            **data,
            "evidence": tuple(Evidence(**e) for e in data["evidence"]),
            "params": tuple(Param(**p) for p in data["params"]),
        }
    )


@dataclass(frozen=True, slots=True)
class Harvest:
    package: str
    releases: tuple[Release, ...]
    candidates: tuple[Candidate, ...]
    failed: tuple[tuple[str, str], ...] = ()  # (version, reason) of releases that could not be read
    notes: tuple[str, ...] = field(default=())
