"""A knowledge entry as the loader builds it (`SpecChange` and its parts), the kinds of change
and what each means for code, the levels an entry and a finding state, and how a version is
dated against a change.

The harvest generates these types and every stage above the knowledge reads them. They name no
result type: a change is crossed by any `Move`, such as `auditor.models.Transition`, so that
`auditor.models` can build on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from auditor.fix.spec import Fix


class Move(Protocol):
    """A package going from one version to another: what crosses a change."""

    @property
    def package(self) -> str: ...

    @property
    def old(self) -> Version | None: ...

    @property
    def new(self) -> Version | None: ...

    @property
    def direction(self) -> str: ...


Severity = Literal["low", "medium", "high"]
Confidence = Literal["low", "medium", "high"]

KINDS = (
    "behaviour", "now-raises", "removed", "deprecated", "default-changed", "python-support", "added",
    "made-public", "warning-removed", "undeprecated",
)
# The way across a change in which it can hurt code: "upgrade" into it (past `introduced`, or
# back below `until`), "downgrade" out of it, or both. Kinds that settle it give it; an entry
# whose kind does not states `hazard` itself.
Hazard = Literal["upgrade", "downgrade", "both"]
HAZARD_OF_KIND: dict[str, Hazard] = {
    "behaviour": "both",
    "default-changed": "both",
    "removed": "upgrade",
    "now-raises": "upgrade",
    "python-support": "upgrade",
    "deprecated": "upgrade",  # a warning appears; going back it goes away, which hurts nothing
    "added": "downgrade",
    "made-public": "downgrade",
    "warning-removed": "downgrade",
    "undeprecated": "downgrade",
}
# Kinds whose harmless way ends a warning or opens an API: crossed that way on an upgrade,
# they are good news (a workaround may go), never a finding.
GOOD_NEWS_KINDS = ("deprecated", "made-public", "warning-removed", "undeprecated")
# What happens to code that meets a change: it stops working (raises, a name is gone, an import
# fails), it keeps running with other values, dtypes, shapes or files, it only warns, or what
# changes is the environment (builds, drivers, Pythons). The order is the report's tiers.
Consequence = Literal["breaks", "changes-results", "environment", "warns"]
CONSEQUENCES: tuple[Consequence, ...] = ("breaks", "changes-results", "environment", "warns")
# The consequence each kind has on the way it hurts (`added` and `made-public` hurt going below
# them: the name is missing). Behaviour and default changes whose probe declares a warning and no
# exception only warn; an entry whose kind misleads states `consequence` itself.
CONSEQUENCE_OF_KIND: dict[str, Consequence] = {
    "behaviour": "changes-results",
    "default-changed": "changes-results",
    "removed": "breaks",
    "now-raises": "breaks",
    "added": "breaks",
    "made-public": "breaks",
    "python-support": "environment",
    "deprecated": "warns",
    "warning-removed": "warns",
    "undeprecated": "warns",
}


def release(version: Version) -> Version:
    """The public release a version belongs to: `1.13.0+cu117` crosses what `1.13.0` crosses."""
    return Version(version.public)


def final_release(version: Version) -> Version:
    """The final release a version leads to or belongs to: `2.6.0rc1`, a `2.6.0.dev20250101`
    nightly and a `2.6.0a0+git1234` source build are audited as `2.6.0`."""
    return Version(version.base_version)


@dataclass(frozen=True, slots=True)
class Condition:
    """Argument conditions a call must meet to be affected (all that are set must hold)."""

    keyword_absent: tuple[str, ...] = ()
    keyword_present: tuple[str, ...] = ()
    keyword_values: tuple[tuple[str, tuple[object, ...]], ...] = ()
    keyword_values_absent: tuple[tuple[str, tuple[object, ...]], ...] = ()  # `source='local'` rules a call out
    literal_prefix_absent: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a string literal starting so rules it out
    min_positional: int | None = None
    max_positional: int | None = None  # at most this many positional arguments: `F.softmax(x)`, dim not given
    int_literal_out_of_dtype: bool = False
    float_in_data: bool = False  # the data argument plainly holds a Python float
    float_bound: tuple[str, ...] = ()  # keyword names (or "#<index>" for positions) given a float literal
    not_bool: tuple[str, ...] = ()  # arguments (keyword names or "#<index>") that must not be known bool
    # the argument (first of these present, keyword names or "#<index>") and the dtype families
    # ("bool", "int", "float") that are affected: another known family rules the call out, an
    # unknown one makes it low confidence
    argument_dtype: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    needs_usage: tuple[str, ...] = ()  # patterns ("attribute:grad") the hazard needs in view as well
    usage_scope: str = "function"  # where they are looked for: "function" or "module"
    # "tensors": ruled out where an annotation in view declares the call's result to hold only
    # tensors, plain values and tuples, lists, dicts of them (`scan.declared`)
    unless_declared: str | None = None
    parameters: tuple[str, ...] = ()  # the call's leading positional parameters: `#0` is also `data=`
    none_is_default: tuple[str, ...] = ()  # keywords whose value None is the same as leaving them out
    # "class": ruled out in a method of a class no code of the project names (`scan.reach`)
    unless_unused: str | None = None
    # ruled out where the call is an element of a list or tuple whose later element is a call of
    # one of these: a pipeline that converts to a tensor after it (`Compose([Resize(..),
    # ToTensor()])`) shows the call meets a PIL image
    unless_followed_by: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Match:
    """Where user code hits a change. Exactly one of call/method/operator/assign/module is set."""

    call: str | None = None  # qualified name: calls, references, subclasses, decorators
    method: tuple[str, ...] = ()  # method names on a value known (or likely) to be a tensor
    receiver: Literal["tensor", "module"] = "tensor"  # what a method's receiver is: a tensor or an nn.Module
    operator: tuple[str, ...] = ()  # "//", "//="
    assign: str | None = None  # attribute assigned on a tensor, e.g. "data"
    module: str | None = None  # a module: each import statement that imports it or from it
    when: Condition = field(default_factory=Condition)
    message: str | None = None
    confidence: Confidence = "high"  # the most a hit of this match can claim
    # only calls whose code in view decides the conditions: where only a `**kwargs` or `*args` of
    # unknown content could meet them (a "low" verdict) there is no hit (generated matchers)
    decided: bool = False


@dataclass(frozen=True, slots=True)
class Harvested:
    """Where a generated change comes from: a line of the package's own released source."""

    release: str
    file: str
    line: int
    message: str


@dataclass(frozen=True, slots=True)
class Docs:
    what: str
    why: str
    before: str
    keep_old: str
    adopt_new: str
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Probe:
    code: str
    before: str
    after: str
    observed_on: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()  # other packages the probe imports (numpy, ...)
    skip: str | None = None  # why the probe cannot run on a CPU machine, if it cannot
    since: Version | None = None  # older releases lack what the probe uses: it shows nothing there
    # Releases before `since` on which a real run of the probe showed what it uses missing
    # (ImportError, AttributeError): the change's earlier side, pinned by absence.
    absent_on: tuple[str, ...] = ()
    # What a user sees where the change is active: "FutureWarning" or "FutureWarning: text" for a
    # warning of that category (whose first line holds the text; "Warning" for any category, where
    # another entry dates the change of category); "RuntimeError" for an exception.
    warns: str | None = None
    raises: str | None = None

    def expected(self, active: bool) -> str:
        return self.after if active else self.before

    def signal_problem(self, active: bool, warnings: tuple[str, ...], observed: str) -> str | None:
        """Why the run does not show the declared warning or exception, or None when it does.

        Where the change is active the warning must be seen (with its category) and the
        exception must be the observed one; where it is not, the warning must not be seen."""
        if self.warns is not None:
            category, _, text = self.warns.partition(": ")
            seen = any(  # "Warning" stands for any category (one that changed over the releases)
                category in ("Warning", w.partition(": ")[0]) and text in w.partition(": ")[2] for w in warnings
            )
            if active and not seen:
                return f"no {self.warns} was raised"
            if not active and seen:
                return f"{self.warns} was raised where the change is not active"
        if self.raises is not None and active:
            lines = observed.splitlines()
            if not any(line.startswith(self.raises + ":") or line == self.raises for line in lines):
                return f"no {self.raises} was raised"
        return None

    def unusable_on(self, version: Version) -> str | None:
        """Why the probe says nothing about `version`, or None when it does."""
        if self.since is not None and release(version) < self.since:
            return f"the probe needs {self.since} or newer (what it uses did not exist before)"
        return None


class Crossed:
    """What a transition crosses: a change of `package`, in force from `introduced` until
    `until`, that can hurt code moving the way its `hazard` says."""

    __slots__ = ()
    package: str
    introduced: Version
    until: Version | None
    hazard: Hazard

    def active(self, version: Version) -> bool:
        """Whether `version` has the new behaviour."""
        v = final_release(version)
        return self.introduced <= v and (self.until is None or v < self.until)

    def crossing(self, transition: Move) -> Literal["into", "out of"] | None:
        """Which way the transition crosses the change, if it does."""
        if transition.old is None or transition.new is None or transition.package != self.package:
            return None
        before, after = self.active(transition.old), self.active(transition.new)
        if before == after:
            return None
        return "into" if after else "out of"

    def crossed_by(self, transition: Move) -> bool:
        """Whether the transition crosses the change in a way that can hurt code."""
        way = self.crossing(transition)
        if way is None:
            return False
        return self.hazard == "both" or self.hazard == ("upgrade" if way == "into" else "downgrade")


@dataclass(frozen=True, slots=True)
class Unloaded(Crossed):
    """`count` changes generated from a harvest that an audit did not load (no `--harvested`),
    alike in what decides whether a transition crosses them."""

    package: str
    introduced: Version
    until: Version | None
    hazard: Hazard
    count: int


@dataclass(frozen=True, slots=True)
class SpecChange(Crossed):
    id: str
    package: str
    introduced: Version
    kind: str
    severity: Severity
    silent: bool
    title: str
    symbols: tuple[str, ...]
    matches: tuple[Match, ...]
    docs: Docs
    references: tuple[str, ...]
    source: str  # the TOML file it was read from
    until: Version | None = None  # superseded (reverted) in this release
    # Generated removals: the release what is removed first appeared in. From an old end before
    # it, a line that ran there failed there too; only one that did not run there (a version
    # guard) and runs after the removal meets the change (`scan.guards.Guards.reaches`).
    since: Version | None = None
    python: SpecifierSet | None = None
    platform: str | None = None
    requires_python: SpecifierSet | None = None  # python-support entries
    probe: Probe | None = None
    doubt: str | None = None
    hazard: Hazard = "both"  # the loader fills it from the kind unless the entry states it
    follows: tuple[str, ...] = ()  # ids of the earlier stages of the same move (deprecation -> removal)
    related: tuple[str, ...] = ()  # ids of entries worth reading beside this one
    covers: tuple[str, ...] = ()  # harvested candidate ids this (curated) entry covers
    harvested: Harvested | None = None  # set on changes generated from a harvest, never probe-verified
    fix: Fix | None = None  # mechanical rewrites per mode (`auditor fix`)
    evidence: str | None = None  # where a change no harvested candidate shows lives ("c++", ...: witness.EVIDENCE)
    stated_consequence: Consequence | None = None  # the entry's `consequence`, where its kind misleads

    @property
    def consequence(self) -> Consequence:
        """What happens to code that meets the change (`CONSEQUENCE_OF_KIND`)."""
        if self.stated_consequence is not None:
            return self.stated_consequence
        derived = CONSEQUENCE_OF_KIND[self.kind]
        if derived == "changes-results" and self.probe is not None and self.probe.warns and not self.probe.raises:
            return "warns"
        return derived

    def good_news_for(self, transition: Move) -> bool:
        """An upgrade crossing the change the harmless way, where that ends a warning or opens
        an API: the code may drop a workaround."""
        return (
            transition.direction == "upgrade" and self.kind in GOOD_NEWS_KINDS
            and self.crossing(transition) is not None and not self.crossed_by(transition)
        )

    def applies_to_python(self, python: str | None) -> bool:
        return self.python is None or python is None or self.python.contains(python)
