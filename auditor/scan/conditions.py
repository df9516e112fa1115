"""The scanner's test of each argument condition of a knowledge matcher on a call (`TESTS`);
the conditions themselves are the knowledge schema's (`auditor.knowledge.conditions`).

A test returns None when the call does not meet the condition, else the most the call can
claim ("high" when the condition is decided, "low" when only a `**kwargs` or `*args` out of
view could meet it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from auditor.knowledge.conditions import set_kinds, weakest
from auditor.knowledge.entry import Condition, Confidence, Match
from auditor.scan.apis import INT_DTYPES
from auditor.scan.declared import declared, holds_tensor, only_tensors
from auditor.scan.dicts import Dicts, Keys
from auditor.scan.names import Resolver
from auditor.scan.reach import unused_class
from auditor.scan.scopes import Scope
from auditor.scan.tags import BOOL_TENSOR, FLOAT, FLOAT_TENSOR, INT_TENSOR, Tag, is_tensor
from auditor.scan.usage import Usages, region
from auditor.scan.values import UNKNOWN, Forwarded, constant, none_reaches


def _literal_ints(node: ast.expr) -> list[int]:
    """The int literals that are elements of a tensor's data (not arguments of calls in it)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [v for element in node.elts for v in _literal_ints(element)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return [-v for v in _literal_ints(node.operand)]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [node.value]
    return []


def _has_float(node: ast.expr, resolver: Resolver, scope: Scope) -> bool:
    """Whether a tensor's data plainly holds a Python float (a literal, or a float-valued name)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return any(_has_float(element, resolver, scope) for element in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _has_float(node.operand, resolver, scope)
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    return resolver.tag(node, scope) == FLOAT


def _argument(spec: str, call: ast.Call, names: tuple[str, ...] = ()) -> ast.expr | None:
    """The argument a condition names: a keyword, or `#<index>` for a position, which `names`
    (the call's leading positional parameters) lets be given by keyword too (`data=`)."""
    if spec.startswith("#"):
        index = int(spec[1:])
        if index < len(call.args):
            return call.args[index]
        if index >= len(names):
            return None
        spec = names[index]
    return next((k.value for k in call.keywords if k.arg == spec), None)


# Methods whose result is bool whatever the receiver (`labels.eq(pad)`), and methods that keep
# the receiver's dtype (`(mask == 0).view(shape)`): enough to tell a mask, not to type a value.
BOOL_METHODS = frozenset(
    [
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "bool",
        "isnan",
        "isinf",
        "isfinite",
        "isneginf",
        "isposinf",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "isin",
        "signbit",
    ]
)
SAME_DTYPE_METHODS = frozenset(
    [
        "view",
        "view_as",
        "expand",
        "expand_as",
        "unsqueeze",
        "squeeze",
        "reshape",
        "transpose",
        "permute",
        "contiguous",
        "flatten",
        "repeat",
        "clone",
        "detach",
        "t",
        "cuda",
        "cpu",
        "flip",
        "roll",
    ]
)


def _known_bool(
    node: ast.expr,
    resolver: Resolver,
    scope: Scope,
    dicts: Dicts | None = None,
    seen: frozenset[str] = frozenset(),
) -> bool:
    """A comparison, a bool tensor, `~`, `&`, `|` of them, a bool method's result, or a reshaped or
    indexed one: bool whatever the operands. With `dicts`, a local name is followed to its
    assignments in the same function (`mask = (pad == 0).view(...)`); all must be bool."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return _known_bool(node.operand, resolver, scope, dicts, seen)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _known_bool(node.left, resolver, scope, dicts, seen) and _known_bool(
            node.right, resolver, scope, dicts, seen
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in BOOL_METHODS and not resolver.qualified(node.func, scope):
            return True
        if node.func.attr in SAME_DTYPE_METHODS:
            return _known_bool(node.func.value, resolver, scope, dicts, seen)
    if isinstance(node, ast.Subscript):
        return _known_bool(node.value, resolver, scope, dicts, seen)
    if resolver.tag(node, scope) == BOOL_TENSOR:
        return True
    if (
        isinstance(node, ast.Name)
        and dicts is not None
        and node.id not in seen
        and node.id in scope.bindings
    ):
        values = dicts.values(node.id, scope.node, node.lineno)
        return values is not None and all(
            _known_bool(v, resolver, scope, dicts, seen | {node.id}) for v in values
        )
    return False


def _first_argument(
    specs: tuple[str, ...], call: ast.Call, names: tuple[str, ...] = ()
) -> ast.expr | None:
    return next(
        (a for a in (_argument(spec, call, names) for spec in specs) if a is not None), None
    )


def argument_family(
    specs: tuple[str, ...],
    call: ast.Call,
    resolver: Resolver,
    scope: Scope,
    dicts: Dicts | None = None,
    names: tuple[str, ...] = (),
) -> str | None:
    """The dtype family ("bool", "int", "float") of the first of these arguments, when in view."""
    argument = _first_argument(specs, call, names)
    if argument is None:
        return None
    if _known_bool(argument, resolver, scope, dicts):
        return "bool"
    tag = resolver.tag(argument, scope)
    return tag.family if tag in (INT_TENSOR, FLOAT_TENSOR) else None


def _literal(node: ast.expr, resolver: Resolver, scope: Scope) -> object:
    value = constant(node, resolver, scope)
    if value is not UNKNOWN:
        return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):  # `destination=-1`
        value = _literal(node.operand, resolver, scope)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
        return None
    return resolver.qualified(node, scope)


def _spread_keys(call: ast.Call, scope: Scope, dicts: Dicts) -> Keys | None:
    """The keys of every `**dict` of a call, when each is built in view in the call's own scope
    (a function, or the module): a dict of an enclosing scope may be changed where it is not."""
    found = Keys()
    for keyword in call.keywords:
        if keyword.arg is not None:
            continue
        value = keyword.value
        if scope.is_class or (isinstance(value, ast.Name) and value.id not in scope.bindings):
            return None
        keys = dicts.keys(value, scope.node)
        if keys is None:
            return None
        found.merge(keys, certain=True)
    return found


@dataclass(frozen=True)
class CallView:
    """A call as the conditions see it: its keywords, with those of a `**dict` built in view."""

    call: ast.Call
    resolver: Resolver
    scope: Scope
    input_tag: Tag | None  # the receiver's (a method) or the first argument's tag
    method: bool
    dicts: Dicts | None
    usages: Usages
    when: Condition
    keywords: dict[str, ast.expr] = field(default_factory=dict)
    spread: bool = False  # a `**dict` whose keys are not in view
    starred: bool = False  # a `*args`
    possible: dict[str, list[ast.expr]] = field(
        default_factory=dict
    )  # keys a `**dict` in view may hold
    present: frozenset[str] = frozenset()  # of those, the keys it holds whichever value they take
    # a keyword left out because None reaches it only through a parameter's default, no caller in view
    # passing it (`values.Forwarded`): the most the call can claim
    cap: Confidence = "high"

    def argument(self, spec: str) -> ast.expr | None:
        return _argument(spec, self.call, self.when.parameters)


def _view(
    call: ast.Call,
    when: Condition,
    resolver: Resolver,
    scope: Scope,
    input_tag: Tag | None,
    method: bool,
    dicts: Dicts | None,
    usages: Usages | None,
) -> CallView:
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    spread = any(k.arg is None for k in call.keywords)
    possible: dict[str, list[ast.expr]] = {}
    present: frozenset[str] = frozenset()
    if spread and dicts is not None:
        known = _spread_keys(call, scope, dicts)
        if known is not None:
            keywords = {**known.certain, **keywords}
            possible = {k: v for k, v in known.possible.items() if k not in keywords}
            present = frozenset(known.present)
            spread = False
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    cap: Confidence = "high"
    for name in when.none_is_default:
        if name in keywords:
            reaches = none_reaches(keywords[name], resolver, scope)
            if reaches is not False:
                del keywords[name]  # None given: the parameter's default, as if left out
                if isinstance(reaches, Forwarded):
                    cap = weakest(cap, reaches.confidence)
    return CallView(
        call,
        resolver,
        scope,
        input_tag,
        method,
        dicts,
        usages or Usages(),
        when,
        keywords,
        spread,
        starred,
        possible,
        present,
        cap,
    )


def forwarded(when: Condition, call: ast.Call, resolver: Resolver, scope: Scope) -> str | None:
    """Why a keyword of `none_is_default` given a wrapper's parameter counts as left out, to be
    said with the finding (None when no such keyword is)."""
    for name in when.none_is_default:
        value = next((k.value for k in call.keywords if k.arg == name), None)
        reaches = none_reaches(value, resolver, scope) if value is not None else False
        if isinstance(reaches, Forwarded):
            return f"Here `{name}=` is {reaches.note}."
    return None


# -- the tests, one per condition ---------------------------------------------------------------


def _keyword_absent(names: tuple[str, ...], v: CallView) -> Confidence | None:
    confidence: Confidence = "high"
    for name in names:
        if name in v.keywords or name in v.present:
            return None
        if v.spread or name in v.possible:
            confidence = "low"
    return confidence


def _keyword_present(names: tuple[str, ...], v: CallView) -> Confidence | None:
    if any(name in v.keywords or name in v.present for name in names):
        return "high"
    if not v.spread and not any(name in v.possible for name in names):
        return None
    return "low"


def _keyword_values(
    pairs: tuple[tuple[str, tuple[object, ...]], ...], v: CallView
) -> Confidence | None:
    confidence: Confidence = "high"
    for name, values in pairs:
        if name not in v.keywords:
            if not v.spread and name not in v.possible:
                return None
            literals = [_literal(x, v.resolver, v.scope) for x in v.possible.get(name, [])]
            if literals and None not in literals and not any(x in values for x in literals):
                return None  # every value it may take is in view, and none is one of the values
            confidence = "low"
            continue
        value = _literal(v.keywords[name], v.resolver, v.scope)
        if value is None or value not in values:
            return None  # `dtype=x.dtype`, `dtype=dtype`: nothing says it is one of the values
    return confidence


def _keyword_values_absent(
    pairs: tuple[tuple[str, tuple[object, ...]], ...], v: CallView
) -> Confidence | None:
    """Ruled out where a keyword plainly has one of the values (`source='local'`); a value out of
    view does not rule it out."""
    for name, values in pairs:
        if name in v.keywords and _literal(v.keywords[name], v.resolver, v.scope) in values:
            return None
    return "high"


def _literal_prefix_absent(
    pairs: tuple[tuple[str, tuple[str, ...]], ...], v: CallView
) -> Confidence | None:
    """Ruled out where an argument is a string literal starting with one of the prefixes (a repo
    of an owner torch trusts: `'pytorch/vision'`)."""
    for spec, prefixes in pairs:
        node = _argument(spec, v.call)
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith(prefixes)
        ):
            return None
    return "high"


def _min_positional(count: int, v: CallView) -> Confidence | None:
    if len(v.call.args) >= count:
        return "high"
    return "low" if v.starred else None


def _max_positional(count: int, v: CallView) -> Confidence | None:
    if len(v.call.args) > count:
        return None
    return "low" if v.starred else "high"  # `F.softmax(*args)` may pass the argument by position


def _int_literal_out_of_dtype(_: bool, v: CallView) -> Confidence | None:
    dtype = v.resolver.qualified(v.keywords["dtype"], v.scope) if "dtype" in v.keywords else None
    limits = INT_DTYPES.get((dtype or "").removeprefix("torch."))
    data = v.argument("#0")
    if not limits or data is None:
        return None
    low, high = limits
    return "high" if any(x < low or x > high for x in _literal_ints(data)) else None


def _float_in_data(_: bool, v: CallView) -> Confidence | None:
    data = v.argument("#0")
    return "high" if data is not None and _has_float(data, v.resolver, v.scope) else None


def _float_bound(names: tuple[str, ...], v: CallView) -> Confidence | None:
    bounds = [v.keywords[k] for k in names if k in v.keywords]
    bounds += v.call.args[0 if v.method else 1 :]
    floats = [
        b
        for b in bounds
        if (isinstance(b, ast.Constant) and type(b.value) is float)
        or v.resolver.tag(b, v.scope) == FLOAT
    ]
    tensors = [b for b in bounds if is_tensor(v.resolver.tag(b, v.scope))]
    if not floats and not tensors:
        return None
    if v.input_tag == INT_TENSOR:
        if floats or any(v.resolver.tag(b, v.scope) != INT_TENSOR for b in tensors):
            return "high"
        # Integer tensor bounds on an integer tensor promote only to a wider integer dtype
        # (int32 clamped by int64), and the widths are not in view.
        return "low"
    # A float literal bound changes nothing on a float tensor, and real code clamps float
    # activations with `min=1e-6` everywhere: without knowing the dtype it is not reported.
    # A tensor bound may promote a float16 input, or an integer one.
    return "low" if tensors else None


def _not_bool(specs: tuple[str, ...], v: CallView) -> Confidence | None:
    for spec in specs:
        argument = v.argument(spec)
        if argument is not None and _known_bool(argument, v.resolver, v.scope, v.dicts):
            return None
    return "high"


def _argument_dtype(
    value: tuple[tuple[str, ...], tuple[str, ...]], v: CallView
) -> Confidence | None:
    specs, families = value
    family = argument_family(specs, v.call, v.resolver, v.scope, v.dicts, v.when.parameters)
    if (
        family is None
        and not (v.starred or v.spread)
        and _first_argument(specs, v.call, v.when.parameters) is None
    ):
        return None  # not passed at all
    if family is None:
        return "low"  # its dtype is not in view
    return "high" if family in families else None


def _needs_usage(patterns: tuple[str, ...], v: CallView) -> Confidence | None:
    where = region(v.scope, v.when.usage_scope)
    return "high" if all(v.usages.found(pattern, where) for pattern in patterns) else None


def _unless_declared(value: str, v: CallView) -> Confidence | None:
    if value == "tensors" and (
        only_tensors(declared(v.call, v.scope), v.resolver, v.scope)
        or holds_tensor(v.call, v.resolver, v.scope)
    ):
        return None  # the code says it loads tensors only
    return "high"


def _unless_unused(value: str, v: CallView) -> Confidence | None:
    if value == "class" and unused_class(v.resolver, v.scope) is not None:
        return None  # the project never creates the class whose method this is
    return "high"


def _unless_followed_by(names: tuple[str, ...], v: CallView) -> Confidence | None:
    for node in ast.walk(v.scope.node):
        if not isinstance(node, (ast.List, ast.Tuple)):
            continue
        for at, element in enumerate(node.elts):
            if element is v.call:
                later = node.elts[at + 1 :]
                if any(
                    isinstance(e, ast.Call) and v.resolver.qualified(e.func, v.scope) in names
                    for e in later
                ):
                    return None  # a later stage shows what the call meets
                return "high"
    return "high"


def _always(_: object, v: CallView) -> Confidence | None:
    return "high"


# the test of each condition of the registry (`knowledge.conditions.KINDS`) on a call
TESTS: dict[str, Callable[[Any, CallView], Confidence | None]] = {
    "keyword_absent": _keyword_absent,
    "keyword_present": _keyword_present,
    "keyword_values": _keyword_values,
    "keyword_values_absent": _keyword_values_absent,
    "literal_prefix_absent": _literal_prefix_absent,
    "min_positional": _min_positional,
    "max_positional": _max_positional,
    "int_literal_out_of_dtype": _int_literal_out_of_dtype,
    "float_in_data": _float_in_data,
    "float_bound": _float_bound,
    "not_bool": _not_bool,
    "argument_dtype": _argument_dtype,
    "needs_usage": _needs_usage,
    "usage_scope": _always,
    "unless_declared": _unless_declared,
    "parameters": _always,
    "none_is_default": _always,
    "unless_unused": _unless_unused,
    "unless_followed_by": _unless_followed_by,
}


def check(
    match: Match,
    call: ast.Call,
    resolver: Resolver,
    scope: Scope,
    input_tag: Tag | None,
    method: bool,
    dicts: Dicts | None = None,
    usages: Usages | None = None,
) -> Confidence | None:
    """The confidence with which `call` meets the match's conditions, or None if it does not.
    With `dicts`, keyword conditions see through `**kwargs` built in view. A `decided` match
    takes no call that only a `**kwargs` or `*args` out of view could make meet them."""
    confidence: Confidence = match.confidence
    kinds = set_kinds(match.when)
    if not kinds:
        return confidence
    view = _view(call, match.when, resolver, scope, input_tag, method, dicts, usages)
    for kind, value in kinds:
        verdict = TESTS[kind.name](value, view)
        if verdict is None or (verdict == "low" and match.decided):
            return None
        confidence = weakest(confidence, verdict)
    return weakest(confidence, view.cap)
