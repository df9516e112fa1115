"""Frozen data shared by the stages: lock pins, transitions, spec changes, findings, results."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from auditor.errors import redact

Severity = Literal["low", "medium", "high"]
Confidence = Literal["low", "medium", "high"]
Verdict = Literal["pass", "unchecked", "fail"]
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


# The presence tables' format (`knowledge/<package>/harvest/presence.json`), written by
# `auditor.harvest.presence` and read by `auditor.knowledge.presence`: per name, one state per
# release read, from it on.
PRESENT, ABSENT, UNKNOWN = "+", "-", "?"
PRESENCE_FILE = "presence.json"


def rank(level: str) -> int:
    """Order of a severity or confidence level; 0 for `none`."""
    return {"none": 0, "low": 1, "medium": 2, "high": 3}[level]


def release(version: Version) -> Version:
    """The public release a version belongs to: `1.13.0+cu117` crosses what `1.13.0` crosses."""
    return Version(version.public)


def final_release(version: Version) -> Version:
    """The final release a version leads to or belongs to: `2.6.0rc1`, a `2.6.0.dev20250101`
    nightly and a `2.6.0a0+git1234` source build are audited as `2.6.0`."""
    return Version(version.base_version)


# --- locks -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pin:
    """One package as a lock states it. `version` is None when the input does not pin it."""

    name: str  # PEP 503 canonical
    version: Version | None
    marker: str | None = None
    source: str | None = None
    groups: tuple[str, ...] = ()
    line: int | None = None
    specifier: str | None = None  # the range an unpinned input asks for
    platform: str | None = None  # the conda platform (linux-64, osx-arm64) a per-platform lock pins for
    build: str | None = None  # a conda build string (py3.10_cuda11.8_cudnn8.7.0_0): tells CUDA or CPU
    # a path or `file:` requirement (`-e .`, `./libs/x`): its name only where the input states it
    # ("" otherwise), its version only where a file does (an archive's name, pip freeze's header)
    local: bool = False
    wheels: tuple[str, ...] = ()  # the wheel file names the lock lists for this pin, where it lists them
    requires: tuple[str, ...] = ()  # the names this pin depends on, where the lock says

    def __post_init__(self) -> None:  # a source URL's credentials never reach a report
        if self.source is not None:
            object.__setattr__(self, "source", redact(self.source))


@dataclass(frozen=True, slots=True)
class Lock:
    path: str
    format: str
    pins: tuple[Pin, ...]
    python: str | None = None  # requires-python or interpreter the lock was made for, when known
    notes: tuple[str, ...] = ()  # what the reader did beyond parsing (resolved ranges, ...)
    markers: bool = True  # False: the format records no marker per pin (poetry.lock before 2.1)

    def unpinned(self) -> tuple[Pin, ...]:
        """Registry packages with no version: local requirements have none to pin."""
        return tuple(pin for pin in self.pins if pin.version is None and not pin.local)


# --- transitions -------------------------------------------------------------------------------

Direction = Literal["upgrade", "downgrade", "added", "removed", "unpinned", "unchanged"]


@dataclass(frozen=True, slots=True)
class Transition:
    package: str
    old: Version | None
    new: Version | None
    environment: str | None = None  # the marker (or conda platform) of the pin, as the lock writes it
    unpinned: bool = False  # the side without a version still lists the package, with no pin
    variant: str | None = None  # the installs it covers, briefly ("linux x86_64, extra rocm"); None: all

    @property
    def direction(self) -> Direction:
        if self.old is None:
            return "added" if self.new is not None else "unchanged"
        if self.new is None:
            return "unpinned" if self.unpinned else "removed"
        old, new = release(self.old), release(self.new)
        if new > old:
            return "upgrade"
        if new < old:
            return "downgrade"
        return "unchanged"


@dataclass(frozen=True, slots=True)
class EnvironmentFinding:
    """A compatibility problem of the bump itself, not of a line of code."""

    kind: str
    severity: Severity
    message: str
    package: str | None = None
    path: str | None = None  # the lock whose lines show it, and the line
    line: int | None = None
    change: str | None = None  # the knowledge entry this finding states for this lock, if one does


# --- knowledge ---------------------------------------------------------------------------------


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


FixMode = Literal["keep-old", "adopt-new"]
FIX_MODES: tuple[FixMode, ...] = ("keep-old", "adopt-new")
# What a finding's matcher saw (Finding.shape) and what a transform rewrites (Transform.on).
Shape = Literal["call", "method", "operator", "import", "attribute", "assign", "class", "decorator", "partial", "lookup"]


@dataclass(frozen=True, slots=True)
class Action:
    """What a transform's action rewrites (matcher shapes), the fields it needs, and every field
    it reads besides `on`, `action`, `note`, `requires` and `symbols`."""

    shapes: tuple[str, ...]
    required: tuple[str, ...]
    fields: tuple[str, ...]


# the call shapes a rewrite of a call was proven on: a call outside them is left alone
CALL_SHAPE_FIELDS = ("max_positional", "min_positional", "keyword_absent", "not_literal", "proven_keywords", "proven_values")
# what every transform rewriting a call's arguments states (the loader refuses one without):
# how many positional arguments, and which keywords, the shapes it was proven on have
CALL_SHAPE_STATED = ("max_positional", "proven_keywords")
CALL_REWRITES = ("set-keyword", "rename-call", "template", "map-keyword")

# The actions of a `[fix]` transform: the loader checks a transform against its action, and the
# schema's `on` and `action` enums and required fields come from here.
ACTIONS: dict[str, Action] = {
    "set-keyword": Action(("call", "method"), ("keyword", "value"), ("keyword", "value", "replace", "max_positional", "proven_keywords")),
    "rename-call": Action(("call",), ("to",), ("to", "prepend", *CALL_SHAPE_FIELDS)),
    "template": Action(("call", "method", "operator"), ("template",), ("template", "augmented", *CALL_SHAPE_FIELDS)),
    "replace-import": Action(("import",), ("module",), ("module", "name")),
    "replace-attribute": Action(("attribute",), ("to",), ("to",)),
    "replace-module": Action(("call", "attribute", "import"), ("module", "to"), ("module", "to")),
    "map-keyword": Action(
        ("call", "method"), ("keyword", "keywords", "map"),
        ("keyword", "keywords", "map", "replace", "to", "max_positional", "min_positional", "proven_keywords",
         "proven_values"),
    ),
}


@dataclass(frozen=True, slots=True)
class Transform:
    """One mechanical rewrite of a `[[fix.keep_old]]` / `[[fix.adopt_new]]` table: `action`
    applied to a finding whose matcher shape is `on`. Fields an action does not read are None."""

    on: str  # a shape its action rewrites (`ACTIONS`)
    action: str  # one of ACTIONS
    keyword: str | None = None  # set-keyword
    value: str | None = None  # set-keyword: Python source
    replace: bool = False  # set-keyword: overwrite a keyword the call already gives
    to: str | None = None  # rename-call: dotted name; replace-attribute: expression source
    prepend: tuple[str, ...] = ()  # rename-call: leading positional arguments (sources)
    template: str | None = None  # template: expression with placeholders
    augmented: str | None = None  # template on operator: the statement for `a //= b`
    module: str | None = None  # replace-import
    name: str | None = None  # replace-import
    note: str | None = None
    requires: SpecifierSet | None = None  # package versions where the rewritten code works
    symbols: tuple[str, ...] = ()  # the qualified names it applies to (empty: every symbol of its shape)
    max_positional: int | None = None  # refuse a call passing more positional arguments (they would move)
    min_positional: int | None = None  # refuse a call passing fewer (another form of the call)
    keyword_absent: tuple[str, ...] = ()  # rename-call, template: refuse a call giving one of these keywords
    not_literal: tuple[int, ...] = ()  # rename-call, template: refuse a call whose positional argument N is a number literal
    # rename-call, template, map-keyword, set-keyword: the keywords a call may give (None: not stated); a call
    # giving another is left alone, and one giving a keyword of `proven_values` must give it one
    # of those literal values (Python sources)
    proven_keywords: tuple[str, ...] | None = None
    proven_values: tuple[tuple[str, tuple[str, ...]], ...] = ()
    keywords: tuple[str, ...] = ()  # map-keyword: the keywords read (and dropped)
    map: tuple[KeywordRow, ...] = ()  # map-keyword: the rows tried in order


@dataclass(frozen=True, slots=True)
class KeywordRow:
    """A row of a map-keyword table: when each named keyword has one of these literal values
    (Python sources; a keyword the call does not give reads as None), write `value`; a keyword
    the row does not name may have any value. `value` None: no rewrite keeps this case."""

    when: tuple[tuple[str, tuple[str, ...]], ...]
    value: str | None


@dataclass(frozen=True, slots=True)
class Fix:
    """An entry's `[fix]` table: per mode, the transforms tried in order."""

    keep_old: tuple[Transform, ...] = ()
    adopt_new: tuple[Transform, ...] = ()
    probe: bool = True  # false: the entry's probe cannot be rewritten, `probe_reason` says why
    probe_reason: str | None = None

    def transforms(self, mode: FixMode) -> tuple[Transform, ...]:
        return self.keep_old if mode == "keep-old" else self.adopt_new


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

    def crossing(self, transition: Transition) -> Literal["into", "out of"] | None:
        """Which way the transition crosses the change, if it does."""
        if transition.old is None or transition.new is None or transition.package != self.package:
            return None
        before, after = self.active(transition.old), self.active(transition.new)
        if before == after:
            return None
        return "into" if after else "out of"

    def crossed_by(self, transition: Transition) -> bool:
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

    def good_news_for(self, transition: Transition) -> bool:
        """An upgrade crossing the change the harmless way, where that ends a warning or opens
        an API: the code may drop a workaround."""
        return (
            transition.direction == "upgrade" and self.kind in GOOD_NEWS_KINDS
            and self.crossing(transition) is not None and not self.crossed_by(transition)
        )

    def applies_to_python(self, python: str | None) -> bool:
        return self.python is None or python is None or self.python.contains(python)


# --- findings and results ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    change: str
    symbol: str
    path: str  # relative to the project root, forward slashes
    line: int  # 1-based; inside the cell for notebooks
    column: int  # 1-based
    cell: int | None
    confidence: Confidence
    message: str
    snippet: str
    stages: tuple[str, ...] = ()  # earlier stages of the same move crossed together, merged into this one
    shape: Shape | None = None  # what the matcher saw here (a call, a method call, `//`, ...): what `fix` rewrites
    # the findings of other crossed changes at the same call site, folded into this one (`findings.one_per_site`)
    also: tuple[Finding, ...] = ()
    vendored: bool = False  # under a vendored folder (`third_party/`, ...): reported apart, not gating by default
    fix_note: str | None = None  # what the composed fixes of this site trade, where one's rewrite meets another change

    def each(self) -> tuple[Finding, ...]:
        """This finding and those folded into it, each of one change (what `fix` rewrites)."""
        return (replace(self, also=(), fix_note=None), *self.also)


@dataclass(frozen=True, slots=True)
class Way:
    """A project call that reaches an affected line of a dependency, and the dependency's functions
    between (dotted names, from the one the project calls to the one holding the line)."""

    path: str  # the project's file, relative to its root
    line: int
    chain: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InDependency:
    """A call site inside a locked dependency that a crossed change touches."""

    package: str
    version: Version
    finding: Finding  # its path is inside the package
    via: tuple[Way, ...] = ()  # the project's ways into it, where the source shows them
    fixed_in: Version | None = None  # the first later release without this call (None: none found)
    latest: Version | None = None  # the newest release read, when later ones were


@dataclass(frozen=True, slots=True)
class GoodNews:
    """A crossed change that only helps this code: a warning ends, an API becomes public.
    `sites` are the places that use what it touches, where a workaround may now go."""

    change: SpecChange
    sites: tuple[Finding, ...] = ()

    @property
    def message(self) -> str:
        c = self.change
        if c.kind == "made-public":
            return f"{c.title} ({c.package} {c.introduced}): you may use the public name and drop workarounds for the private one."
        if c.kind == "deprecated":
            return f"{c.title} ({c.package} {c.introduced}): the warning ends in {c.until}; you may drop the workaround."
        return f"{c.title} ({c.package} {c.introduced}): you may drop the workaround."


# What a skipped entry stands for: a whole file not read ("file"; "syntax-error" when it does not
# parse), a folder not read (an environment, a git-ignored or excluded folder: listed once, not
# file by file), a file not read because its syntax is newer than the tool's Python
# ("newer-syntax": no verdict is green with one), or a note on a file that was read (a notebook
# cell left out, an ignore comment naming no entry).
SkipKind = Literal["file", "folder", "syntax-error", "newer-syntax", "note"]


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str
    kind: SkipKind = "file"

    @property
    def unread(self) -> bool:
        """Whether the entry is a file or folder that was not read at all."""
        return self.kind != "note"


@dataclass(frozen=True, slots=True)
class ProbeRun:
    version: str
    output: str
    python: str | None = None


@dataclass(frozen=True, slots=True)
class FixCheck:
    """A fix probe: the entry's probe rewritten by one mode of its `[fix]` and run.
    verified: keep-old printed on the new version what the original printed on the old one, or
    adopt-new printed the same on both; ran: adopt-new ran on the one version `kb verify` has."""

    mode: FixMode
    status: Literal["verified", "ran", "failed", "skipped", "error"]
    versions: tuple[str, ...] = ()  # the package versions it was run on (old, new; or the one)
    outputs: tuple[str, ...] = ()  # what was compared, in the order of `versions`
    reason: str | None = None

    def summary(self) -> str:
        """One line for reports: "keep-old verified on 1.12.1 / 1.13.0"."""
        line = f"{self.mode} {self.status} on {' / '.join(self.versions)}" if self.versions else f"{self.mode} {self.status}"
        return f"{line}: {self.reason}" if self.reason and self.status != "verified" else line


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    change: str
    status: Literal["confirmed", "not-reproduced", "error", "skipped"]
    old: ProbeRun | None = None
    new: ProbeRun | None = None
    reason: str | None = None
    fixes: tuple[FixCheck, ...] = ()  # the entry's fix probes on the same two versions


@dataclass(frozen=True, slots=True)
class Gate:
    """Which findings count for the exit code: at or above `severity` (None: none counts) and
    `confidence`; `warns` findings only with `warnings`; vendored code only with `vendored`."""

    severity: str | None = "low"
    confidence: str = "medium"
    warnings: bool = False
    vendored: bool = False

    def counts(self, finding: Finding, change: SpecChange) -> bool:
        """Whether this one change's finding counts (not the ones folded into it)."""
        return (
            self.severity is not None
            and rank(change.severity) >= rank(self.severity)
            and rank(finding.confidence) >= rank(self.confidence)
            and (self.warnings or change.consequence != "warns")
            and (self.vendored or not finding.vendored)
        )


@dataclass(frozen=True, slots=True)
class AuditResult:
    transitions: tuple[Transition, ...]
    changes: tuple[SpecChange, ...]
    findings: tuple[Finding, ...]
    environment: tuple[EnvironmentFinding, ...] = ()
    probes: tuple[ProbeOutcome, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()  # what was done beyond reading the inputs (ranges resolved to pins)
    good_news: tuple[GoodNews, ...] = ()  # crossed the harmless way: never a finding, never an exit code
    horizon: tuple[tuple[str, Version], ...] = ()  # per package, the newest release the knowledge reviewed
    gate: Gate = field(default_factory=Gate)  # what counts for the exit code (the command's options)
    # what the audit crossed and did not check (generated changes, a package with nothing to compare
    # with), each also a note: a verdict is never a pass because of them
    unchecked: tuple[str, ...] = ()
    dependencies: tuple[InDependency, ...] = ()  # calls in the locked dependencies the changes touch
    dependencies_read: tuple[str, ...] = ()  # "name version" of each dependency scanned

    def change(self, change_id: str) -> SpecChange:
        return next(c for c in self.changes if c.id == change_id)

    def gates(self, finding: Finding) -> bool:
        """Whether the finding (or one folded into it) counts for the exit code under `gate`."""
        return any(self.gate.counts(f, self.change(f.change)) for f in finding.each())

    def gating(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if self.gates(f))

    def gates_dependency(self, found: InDependency) -> bool:
        """A call in a dependency counts where the project is seen to reach it."""
        return bool(found.via) and self.gate.counts(found.finding, self.change(found.finding.change))

    def fails(self) -> bool:
        """Whether the exit code fails: a gating finding, or an environment item at or above
        the gate's severity."""
        if self.gate.severity is None:
            return False
        return (bool(self.gating()) or any(self.gates_dependency(d) for d in self.dependencies)
                or any(rank(e.severity) >= rank(self.gate.severity) for e in self.environment))

    def verdict(self) -> Verdict:
        """`fail`: the exit code fails; `unchecked`: it does not, but something crossed was not
        checked (a cause in `unchecked`, or a file of the project not read); `pass`: neither."""
        if self.fails():
            return "fail"
        unread_files = any(s.unread and s.kind != "folder" for s in self.skipped)
        return "unchecked" if self.unchecked or unread_files else "pass"

    def counted(self, confidence: str = "low") -> tuple[Finding, ...]:
        """The findings of at least `confidence`: those an exit code, label or comment counts."""
        return tuple(f for f in self.findings if rank(f.confidence) >= rank(confidence))

    def unread(self) -> tuple[int, int]:
        """How many files, and how many folders, the scan did not read at all (each is listed
        under skipped with why)."""
        paths = {(s.path, s.kind == "folder") for s in self.skipped if s.unread}
        folders = sum(folder for _, folder in paths)
        return len(paths) - folders, folders

    def worst_severity(self, confidence: str = "low") -> str:
        """The highest severity among findings of at least `confidence` and environment
        findings, or `none`."""
        levels = [self.change(f.change).severity for f in self.counted(confidence)]
        levels += [e.severity for e in self.environment]
        return max(levels, key=rank, default="none")
