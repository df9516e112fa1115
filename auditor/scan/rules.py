"""Knowledge matchers compiled into lookup tables; their argument conditions are in `conditions`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from packaging.version import Version

from auditor.knowledge.entry import Match, SpecChange
from auditor.knowledge.presence import NOTHING, Presence
from auditor.scan.apis import DEFINED_AS, PROBED_CLASSES, TYPED_CLASSES

OPERATOR_SYMBOLS = {
    "//": ("torch.Tensor.__floordiv__", "torch.Tensor.__rfloordiv__"),
    "//=": ("torch.Tensor.__ifloordiv__", "torch.Tensor.__ifloordiv__"),
}


@dataclass(frozen=True, slots=True)
class Rule:
    change: SpecChange
    match: Match

    @property
    def message(self) -> str:
        return self.match.message or self.change.title


# Each end of a transition: (package, version) of every moving package; hashable, picklable.
Ends = tuple[tuple[tuple[str, str], ...], ...]


def transition_ends(transitions: Iterable[tuple[str, object, object, object]]) -> Ends:
    """The ends of (package, old, new, environment) moves: per environment, the old side and the
    new side; a package with no version on a side is left out of it."""
    sides: dict[tuple[object, int], dict[str, str]] = {}
    for package, old, new, environment in transitions:
        for side, version in ((0, old), (1, new)):
            if version is not None:
                sides.setdefault((environment, side), {})[package] = str(version)
    return tuple(
        tuple(sorted(versions.items()))
        for _, versions in sorted(sides.items(), key=lambda item: (str(item[0][0]), item[0][1]))
    )


@dataclass
class RuleIndex:
    calls: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    methods: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    operators: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    assigns: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    modules: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    # (change id, method) -> the classes whose method it is, from the change's symbols
    owners: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    owned: frozenset[str] = frozenset()  # methods matched as calls of a class (`numpy.ndarray.ptp`)
    forwards: frozenset[str] = (
        frozenset()
    )  # classes with a matcher on their `forward` (a module's call)
    # the last names of every matched call and method, and `partial`: an attribute chain ending
    # in another name can name no matched call (`Checker._call`, `Checker._attribute`)
    attributes: frozenset[str] = frozenset()
    tokens: tuple[str, ...] = ()  # shortest first: short names (data, load, //) are the common ones
    roots: frozenset[str] = frozenset()  # modules a source must mention to hold a finding
    known: frozenset[str] = (
        frozenset()
    )  # every knowledge id, to tell an ignore comment's typos (empty: not told)
    # tensor attributes a crossed change removes (`names`: torch 2.13), by name: package and release,
    # for the guards to read `hasattr(t, "names")` as the version test it is
    removed_attributes: dict[str, tuple[str, Version]] = field(default_factory=dict)
    # the moving packages' versions at each end of the transition(s), for version guards
    # (`guards`); empty: no guard is read, all code counts as running
    ends: Ends = ()
    presence: Presence = (
        NOTHING  # what each release has, for `hasattr(module, "name")` as a version guard
    )
    # the project's own names for matched calls (`mypkg.tload` -> `torch.load`): reported as the call
    canonical: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        changes: Iterable[SpecChange],
        known: Iterable[str] = (),
        ends: Ends = (),
        presence: Presence = NOTHING,
    ) -> RuleIndex:
        index = cls(known=frozenset(known), ends=ends, presence=presence)
        tokens: set[str] = set()
        roots: set[str] = set()
        for change in changes:
            if change.kind == "removed":
                for symbol in change.symbols:
                    owner, _, attribute = symbol.rpartition(".")
                    if owner in PROBED_CLASSES and attribute.isidentifier():
                        earlier = index.removed_attributes.get(attribute)
                        if earlier is None or change.introduced < earlier[1]:
                            index.removed_attributes[attribute] = (
                                change.package,
                                change.introduced,
                            )
            for match in change.matches:
                rule = Rule(change, match)
                roots.add(change.package.replace("-", "_"))
                if match.call:
                    for call in (match.call, *DEFINED_AS.get(match.call, ())):
                        index.calls[call].append(rule)
                    tokens.add(match.call.rsplit(".", 1)[-1])
                    roots.add(match.call.split(".", 1)[0])
                for name in match.method:
                    index.methods[name].append(rule)
                    index.owners[change.id, name] = _owners(change, name, match.receiver)
                    tokens.add(name)
                for op in match.operator:
                    index.operators[op].append(rule)
                    tokens.add("//")
                if match.assign:
                    index.assigns[match.assign].append(rule)
                    tokens.add(match.assign)
                if match.module:
                    index.modules[match.module].append(rule)
                    tokens.add(match.module.rsplit(".", 1)[-1])
                    roots.add(match.module.split(".", 1)[0])
        index.tokens = tuple(sorted(tokens, key=lambda t: (len(t), t)))
        index.roots = frozenset(roots)
        index.owned = frozenset(
            method
            for call in index.calls
            for owner, _, method in [call.rpartition(".")]
            if _is_class(owner)
        )
        index.forwards = frozenset(
            call.rpartition(".")[0] for call in index.calls if call.endswith(".forward")
        )
        index.attributes = frozenset(
            {call.rpartition(".")[2] for call in index.calls}
            | set(index.methods)
            | index.owned
            | {"partial"}
        )
        return index

    def with_aliases(self, aliases: Mapping[str, str]) -> RuleIndex:
        """This index, where each of the project's names for a matched call (`feeds.reexports`)
        matches as the call does."""
        calls = defaultdict(list, self.calls)
        for alias, call in aliases.items():
            calls[alias] = [*calls.get(alias, []), *self.calls.get(call, [])]
        names = {alias.rpartition(".")[2] for alias in aliases}
        return replace(
            self,
            calls=calls,
            canonical={**self.canonical, **aliases},
            tokens=tuple(sorted({*self.tokens, *names}, key=lambda t: (len(t), t))),
            roots=self.roots | {alias.split(".", 1)[0] for alias in aliases},
            attributes=self.attributes | names,
        )

    def end_versions(self) -> list[dict[str, Version]]:
        return [{package: Version(version) for package, version in end} for end in self.ends]

    def applies(self, rule: Rule, method: str, owner: str) -> bool:
        """Whether the method matcher `rule` is about the methods of class `owner`."""
        return owner in self.owners.get((rule.change.id, method), ())

    def could_match(self, text: str) -> bool:
        """A cheap pre-filter. Every finding needs a name imported from a matched module (a call),
        or a value tagged from one (a tensor), so a source that never mentions one of those
        modules, or mentions no token of a crossed matcher, cannot hold a finding."""
        return self.mentions_root(text) and self.mentions_token(text)

    def mentions_token(self, text: str) -> bool:
        """Whether `text` names a token of a crossed matcher (a module naming no matched module
        can still hold a finding on a tensor another module passes it: `feeds`)."""
        return any(_mentions(text, t) for t in self.tokens)

    def mentions_root(self, text: str) -> bool:
        """Whether `text` names a matched module at all: a module that does may pass another
        module's function a tensor (`feeds`), even when it holds no finding itself."""
        return any(root in text for root in self.roots)


def _is_class(dotted: str) -> bool:
    """`torch.cuda.Stream`, `numpy.ndarray`: a class a method matcher may be keyed by (a class
    named in capitals, or one of the typed classes)."""
    return dotted in TYPED_CLASSES or dotted.rpartition(".")[2][:1].isupper()


def _owners(change: SpecChange, method: str, receiver: str) -> tuple[str, ...]:
    """The classes a method matcher is about: those its change names the method of
    (`torch.optim.Optimizer.zero_grad`), nn.Module for `receiver = "module"`, else the package's
    array class."""
    owners = (s.rpartition(".")[0] for s in change.symbols if s.endswith(f".{method}"))
    named = tuple(dict.fromkeys(o for o in owners if o.rpartition(".")[2][:1].isupper()))
    if receiver == "module":
        return (
            *(o for o in named if o not in ("torch.Tensor", "torch.nn.Module")),
            "torch.nn.Module",
        )
    return named or ("numpy.ndarray" if change.package == "numpy" else "torch.Tensor",)


def _mentions(text: str, token: str) -> bool:
    """Whether `text` has `token` as a whole name (not inside `tensors`, `metadata`), or as an
    operator (`//` not in `http://`, where no operand can precede it). Cheaper than a regex:
    `str.find` does the searching, Python only looks at the neighbours of each occurrence."""
    name = token.isidentifier()
    end = len(token)
    at = text.find(token)
    while at >= 0:
        before = text[at - 1] if at else " "
        if name:
            after = text[at + end : at + end + 1]
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                return True
        elif token != "//" or before not in ":/":
            return True
        at = text.find(token, at + 1)
    return False
