"""Harvested candidates turned into spec changes, each with the narrowest matcher its evidence
allows, or left open with the reason none is narrow enough.

- a removed symbol: its calls, references and imports (a Tensor method: the method on tensors);
- a removed or renamed parameter: the keyword given;
- a changed default: the keyword not given, the positional slot not filled (a new default of
  None only when the body's top-level statements put another value in for it; when they put
  the old one back the harvest waives the candidate with that line);
- a method of a class other than Tensor: keyed by the class's symbol, so the scanner matches it
  only on a receiver it knows is of that class;
- a deprecation or removal stub: the whole symbol when the warning is unconditional, else the
  guard said as argument conditions (`dim is None`, `size_average is not None or ...`).
  A guard that cannot be said so, or a warning that also depends on something else, is never
  matched broadly: the candidate stays open for a curated entry.

Every matcher is `decided`: a call that only a `**kwargs` or `*args` of unknown content could
make meet its conditions (a wrapper forwarding its caller's arguments) is no hit; the caller
decides, elsewhere. A curated matcher reports such a call at low confidence instead.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from packaging.version import Version

from auditor.harvest.model import HIDDEN, RESOLVED, Candidate, Evidence, Param
from auditor.harvest.related import unshown_default
from auditor.knowledge.entry import (
    HAZARD_OF_KIND,
    Condition,
    Confidence,
    Docs,
    Harvested,
    Match,
    SpecChange,
)

NOT_VERIFIED = "from {package}'s own source, not probe-verified"
# Every hit of a generated change is low confidence: listed apart and not counted by default
# (docs/precision.md has the sample of generated findings this rests on).
CONFIDENCE: Confidence = "low"
_SEVERITY = {
    "symbol-removed": "high",
    "removal-stub-added": "high",
    "parameter-removed": "high",
    "parameter-renamed": "high",
    "default-changed": "medium",
    "deprecation-begins": "low",
    "warning-category-changed": "low",
}
_KIND = {
    "symbol-removed": "removed",
    "removal-stub-added": "now-raises",
    "parameter-removed": "removed",
    "parameter-renamed": "removed",
    "default-changed": "default-changed",
    "deprecation-begins": "deprecated",
    "warning-category-changed": "deprecated",
}


@dataclass(frozen=True, slots=True)
class Open:
    """Why a candidate gets no generated matcher."""

    reason: str


def matches(c: Candidate) -> tuple[Match, ...] | Open:
    unshown = unshown_default(c)
    if unshown is not None:
        return Open(unshown)
    target = _target(c)
    if isinstance(target, Open):
        return target
    call, method = target
    message = (
        f"{c.symbol}: {c.detail} ({NOT_VERIFIED.format(package=c.package)}: "
        f"{c.evidence[-1].file}:{c.evidence[-1].line})"
    )

    def match(when: Condition | None = None) -> Match:
        return Match(
            call=call,
            method=method,
            when=when or Condition(),
            message=message,
            confidence=CONFIDENCE,
            decided=True,
        )

    if c.kind == "symbol-removed":
        return (match(),)
    if c.kind in ("parameter-removed", "parameter-renamed") and c.parameter:
        return (match(Condition(keyword_present=(c.parameter,))),)
    if c.kind == "default-changed" and c.parameter:
        if HIDDEN in c.detail:
            return Open(
                "the body puts in for None a value that depends on what the call does not show "
                "(another argument, the instance, the machine): leaving the argument out is not the change"
            )
        if (
            any(p.name == c.parameter and p.default == "None" for p in c.params)
            and RESOLVED not in c.detail
        ):
            return Open(
                "the new default is None and no top-level statement of the body puts a value in for it "
                "(a sentinel read further in, or a native default): the evidence shows no change"
            )
        slot = _position(c.params, c.parameter)
        return (match(Condition(keyword_absent=(c.parameter,), max_positional=slot)),)
    if c.conditional:
        return Open("the warning also depends on a condition not on the call's arguments")
    if c.guard is None:
        return (match(),)  # the whole symbol warns or raises
    conditions = guard_conditions(c.guard, c.params, method is not None and bool(method))
    if isinstance(conditions, Open):
        return conditions
    return tuple(match(when) for when in conditions)


def _target(c: Candidate) -> tuple[str | None, tuple[str, ...]] | Open:
    if c.symbol.startswith("torch.Tensor.") and c.symbol.count(".") == 2:
        return None, (c.symbol.rsplit(".", 1)[1],)
    if c.symbol_kind == "method":
        owner = c.symbol.rsplit(".", 1)[0]
        if not owner.rsplit(".", 1)[-1][:1].isupper():
            return Open("a method of a class whose name the scanner cannot tell from a module's")
        # keyed by the class's own symbol: matched only on a receiver known to be of that class
        # (constructed or annotated in view, or a project subclass), never by the bare method name
        return c.symbol, ()
    if c.symbol_kind is None and c.kind != "removal-stub-added":
        return Open("the symbol's kind is unknown in the release")
    return c.symbol, ()


def _position(params: tuple[Param, ...], name: str) -> int | None:
    """How many positional arguments a call may pass without filling `name` (None: keyword-only
    or unknown, so only the keyword is looked at)."""
    for index, p in enumerate(params):
        if p.name == name:
            return index if p.kind in ("positional", "positional-only") else None
        if p.kind == "var-positional":
            return None
    return None


def guard_conditions(
    guard: str, params: tuple[Param, ...], method: bool
) -> tuple[Condition, ...] | Open:
    """The guard as alternatives of argument conditions, or why it cannot be said so."""
    try:
        tree = ast.parse(guard, mode="eval").body
    except SyntaxError:
        return Open(f"unreadable guard: {guard}")
    by_name = {p.name: p for p in params}
    alternatives = (
        tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.Or) else [tree]
    )
    out = []
    for test in alternatives:
        parts = (
            test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        )
        conditions = [_condition(part, by_name, params) for part in parts]
        combined = (
            None if any(c is None for c in conditions) else _all_of([c for c in conditions if c])
        )
        if combined is None:
            return Open(f"guard not expressible as argument conditions: {guard}")
        out.append(combined)
    return tuple(out)


def _all_of(conditions: list[Condition]) -> Condition | None:
    """Conditions that must all hold, as one; None when that cannot be said (two keywords
    that must both be present: a Condition's keyword_present means any of them)."""
    absent: tuple[str, ...] = ()
    present: tuple[str, ...] = ()
    values: tuple[tuple[str, tuple[object, ...]], ...] = ()
    limit: int | None = None
    for c in conditions:
        absent += c.keyword_absent
        values += c.keyword_values
        if c.keyword_present:
            present += c.keyword_present
        if c.max_positional is not None:
            limit = c.max_positional if limit is None else min(limit, c.max_positional)
    if len(present) > 1:
        return None
    return Condition(
        keyword_absent=absent, keyword_present=present, keyword_values=values, max_positional=limit
    )


def _condition(
    test: ast.expr, by_name: dict[str, Param], params: tuple[Param, ...]
) -> Condition | None:
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name)
    ):
        p = by_name.get(test.operand.id)  # `not only_inputs`: the keyword given a false value
        if p is None or p.default not in ("True",):
            return None
        return Condition(keyword_values=((p.name, (False, 0, None)),))
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
    ):
        return None
    p = by_name.get(test.left.id)
    right, op = test.comparators[0], test.ops[0]
    if p is None or p.kind in ("var-positional", "var-keyword"):
        return None
    constant = isinstance(right, ast.Constant)
    if isinstance(op, ast.Is) and constant and right.value is None:  # type: ignore[attr-defined]
        if p.default != "None":
            return None
        return Condition(keyword_absent=(p.name,), max_positional=_position(params, p.name))
    if isinstance(op, ast.IsNot) and constant and right.value is None:  # type: ignore[attr-defined]
        return Condition(keyword_present=(p.name,))
    if isinstance(op, ast.Eq) and constant:
        return Condition(keyword_values=((p.name, (right.value,)),))  # type: ignore[attr-defined]
    if isinstance(op, ast.NotEq) and constant and p.default is not None:
        try:
            if ast.literal_eval(p.default) == right.value:  # type: ignore[attr-defined]
                return Condition(keyword_present=(p.name,))  # a value other than the default, given
        except (ValueError, SyntaxError):
            return None
    return None


def spec_change(c: Candidate, found: tuple[Match, ...], source: str | None = None) -> SpecChange:
    """`source`: where the candidate comes from (default: its shipped harvest file)."""
    evidence = c.evidence[-1]
    note = NOT_VERIFIED.format(package=c.package)
    return SpecChange(
        id=c.id,
        package=c.package,
        introduced=Version(c.release),
        until=Version(c.until)
        if c.until
        else None,  # undone there: a move across both sees no change
        since=Version(c.since) if c.since else None,  # a move from before it had nothing to lose
        kind=_KIND[c.kind],
        severity=_SEVERITY[c.kind],  # type: ignore[arg-type]
        silent=False,
        title=f"{c.symbol}: {c.detail} ({note}: {evidence.release} {evidence.file}:{evidence.line})",
        symbols=(c.symbol,),
        matches=found,
        docs=Docs(
            what=f"{c.kind} between {c.package} {c.before} and {c.release}: {c.detail}.",
            why=f"{note}; evidence: {evidence.release} {evidence.file}:{evidence.line}: {evidence.message}",
            before=f"{c.symbol}(...)"
            if c.symbol_kind in ("function", "class", "method")
            else c.symbol,
            keep_old=f"keep {c.package}=={c.before}",
            adopt_new=_adopt_new(c, evidence),
        ),
        references=(f"https://pypi.org/project/{c.package}/{c.release}/",),
        source=source or f"{c.package}/harvest/{c.before}..{c.release}.toml",
        doubt=f"{note[0].upper()}{note[1:]}: {evidence.release} {evidence.file}:{evidence.line}: {evidence.message}",
        hazard=HAZARD_OF_KIND[_KIND[c.kind]],
        harvested=Harvested(evidence.release, evidence.file, evidence.line, evidence.message),
    )


def _adopt_new(c: Candidate, evidence: Evidence) -> str:
    """What to do on the new release: a removal's evidence is the old definition, no advice."""
    if c.kind == "symbol-removed":
        return f"stop using {c.symbol}: {c.package} {c.release} no longer defines it"
    return f"follow {c.package} {evidence.release}'s own message: {evidence.message}"


def generate(candidates: list[Candidate]) -> tuple[list[SpecChange], dict[str, str]]:
    """The spec changes of the candidates that allow a narrow matcher, and why the rest do not."""
    made, open_ = [], {}
    for c in candidates:
        found = matches(c)
        if isinstance(found, Open):
            open_[c.id] = found.reason
        else:
            made.append(spec_change(c, found))
    return made, open_
