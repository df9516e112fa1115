"""Knowledge matchers compiled into lookup tables, and their argument conditions."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from packaging.version import Version

from auditor.models import Confidence, Match, SpecChange
from auditor.scan.apis import INT_DTYPES, TYPED_CLASSES
from auditor.scan.declared import declared, only_tensors
from auditor.scan.dicts import Dicts, Keys
from auditor.scan.names import Resolver
from auditor.scan.scopes import Scope
from auditor.scan.tags import BOOL_TENSOR, FLOAT, FLOAT_TENSOR, INT_TENSOR, Tag, is_tensor
from auditor.scan.usage import Usages, region

OPERATOR_SYMBOLS = {
    "//": ("torch.Tensor.__floordiv__", "torch.Tensor.__rfloordiv__"),
    "//=": ("torch.Tensor.__ifloordiv__", "torch.Tensor.__ifloordiv__"),
}
LEVELS: tuple[Confidence, ...] = ("low", "medium", "high")


def weakest(*levels: Confidence) -> Confidence:
    return min(levels, key=LEVELS.index)


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
    return tuple(tuple(sorted(versions.items())) for _, versions in sorted(sides.items(), key=lambda item: (str(item[0][0]), item[0][1])))


@dataclass
class RuleIndex:
    calls: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    methods: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    operators: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    assigns: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    modules: dict[str, list[Rule]] = field(default_factory=lambda: defaultdict(list))
    # (change id, method) -> the classes whose method it is, from the change's symbols
    owners: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    owned: frozenset[str] = frozenset()  # methods matched as calls of a typed class (`numpy.ndarray.ptp`)
    tokens: tuple[str, ...] = ()  # shortest first: short names (data, load, //) are the common ones
    roots: frozenset[str] = frozenset()  # modules a source must mention to hold a finding
    known: frozenset[str] = frozenset()  # every knowledge id, to tell an ignore comment's typos (empty: not told)
    # the moving packages' versions at each end of the transition(s), for version guards
    # (`guards`); empty: no guard is read, all code counts as running
    ends: Ends = ()

    @classmethod
    def build(cls, changes: Iterable[SpecChange], known: Iterable[str] = (), ends: Ends = ()) -> RuleIndex:
        index = cls(known=frozenset(known), ends=ends)
        tokens: set[str] = set()
        roots: set[str] = set()
        for change in changes:
            for match in change.matches:
                rule = Rule(change, match)
                roots.add(change.package.replace("-", "_"))
                if match.call:
                    index.calls[match.call].append(rule)
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
            method for call in index.calls for owner, _, method in [call.rpartition(".")] if owner in TYPED_CLASSES
        )
        return index

    def end_versions(self) -> list[dict[str, Version]]:
        return [{package: Version(version) for package, version in end} for end in self.ends]

    def applies(self, rule: Rule, method: str, owner: str) -> bool:
        """Whether the method matcher `rule` is about the methods of class `owner`."""
        return owner in self.owners.get((rule.change.id, method), ())

    def could_match(self, text: str) -> bool:
        """A cheap pre-filter. Every finding needs a name imported from a matched module (a call),
        or a value tagged from one (a tensor), so a source that never mentions one of those
        modules, or mentions no token of a crossed matcher, cannot hold a finding."""
        return any(root in text for root in self.roots) and any(_mentions(text, t) for t in self.tokens)


def _owners(change: SpecChange, method: str, receiver: str) -> tuple[str, ...]:
    """The classes a method matcher is about: those its change names the method of
    (`torch.optim.Optimizer.zero_grad`), nn.Module for `receiver = "module"`, else the package's
    array class."""
    owners = (s.rpartition(".")[0] for s in change.symbols if s.endswith(f".{method}"))
    named = tuple(dict.fromkeys(o for o in owners if o.rpartition(".")[2][:1].isupper()))
    if receiver == "module":
        return (*(o for o in named if o not in ("torch.Tensor", "torch.nn.Module")), "torch.nn.Module")
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


def _argument(spec: str, call: ast.Call) -> ast.expr | None:
    """The argument a condition names: a keyword, or `#<index>` for a position."""
    if spec.startswith("#"):
        index = int(spec[1:])
        return call.args[index] if index < len(call.args) else None
    return next((k.value for k in call.keywords if k.arg == spec), None)


# Methods whose result is bool whatever the receiver (`labels.eq(pad)`), and methods that keep
# the receiver's dtype (`(mask == 0).view(shape)`): enough to tell a mask, not to type a value.
BOOL_METHODS = frozenset(
    ["eq", "ne", "lt", "le", "gt", "ge", "bool", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or", "logical_not", "logical_xor", "isin", "signbit"]
)
SAME_DTYPE_METHODS = frozenset(
    ["view", "view_as", "expand", "expand_as", "unsqueeze", "squeeze", "reshape", "transpose", "permute", "contiguous", "flatten", "repeat", "clone", "detach", "t", "cuda", "cpu", "flip", "roll"]
)


def _known_bool(
    node: ast.expr, resolver: Resolver, scope: Scope, dicts: Dicts | None = None, seen: frozenset[str] = frozenset()
) -> bool:
    """A comparison, a bool tensor, `~`, `&`, `|` of them, a bool method's result, or a reshaped or
    indexed one: bool whatever the operands. With `dicts`, a local name is followed to its
    assignments in the same function (`mask = (pad == 0).view(...)`); all must be bool."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return _known_bool(node.operand, resolver, scope, dicts, seen)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _known_bool(node.left, resolver, scope, dicts, seen) and _known_bool(node.right, resolver, scope, dicts, seen)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in BOOL_METHODS and not resolver.qualified(node.func, scope):
            return True
        if node.func.attr in SAME_DTYPE_METHODS:
            return _known_bool(node.func.value, resolver, scope, dicts, seen)
    if isinstance(node, ast.Subscript):
        return _known_bool(node.value, resolver, scope, dicts, seen)
    if resolver.tag(node, scope) == BOOL_TENSOR:
        return True
    if isinstance(node, ast.Name) and dicts is not None and node.id not in seen and node.id in scope.bindings:
        values = dicts.values(node.id, scope.node, node.lineno)
        return values is not None and all(_known_bool(v, resolver, scope, dicts, seen | {node.id}) for v in values)
    return False


def _first_argument(specs: tuple[str, ...], call: ast.Call) -> ast.expr | None:
    return next((a for a in (_argument(spec, call) for spec in specs) if a is not None), None)


def argument_family(
    specs: tuple[str, ...], call: ast.Call, resolver: Resolver, scope: Scope, dicts: Dicts | None = None
) -> str | None:
    """The dtype family ("bool", "int", "float") of the first of these arguments, when in view."""
    argument = _first_argument(specs, call)
    if argument is None:
        return None
    if _known_bool(argument, resolver, scope, dicts):
        return "bool"
    tag = resolver.tag(argument, scope)
    return tag.family if tag in (INT_TENSOR, FLOAT_TENSOR) else None


def _literal(node: ast.expr, resolver: Resolver, scope: Scope) -> object:
    if isinstance(node, ast.Constant):
        return node.value
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
    With `dicts`, keyword conditions see through `**kwargs` built in view."""
    when = match.when
    confidence: Confidence = match.confidence
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    spread = any(k.arg is None for k in call.keywords)
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    possible: dict[str, list[ast.expr]] = {}  # keys a `**dict` built in view may hold
    present: set[str] = set()  # of those, the keys it holds whichever value they take
    if spread and dicts is not None:
        known = _spread_keys(call, scope, dicts)
        if known is not None:
            keywords = {**known.certain, **keywords}
            possible = {k: v for k, v in known.possible.items() if k not in keywords}
            present = known.present
            spread = False

    for name in when.keyword_absent:
        if name in keywords or name in present:
            return None
        if spread or name in possible:
            confidence = "low"
    if when.keyword_present and not any(name in keywords or name in present for name in when.keyword_present):
        if not spread and not any(name in possible for name in when.keyword_present):
            return None
        confidence = "low"
    for name, values in when.keyword_values:
        if name not in keywords:
            if not spread and name not in possible:
                return None
            literals = [_literal(v, resolver, scope) for v in possible.get(name, [])]
            if literals and None not in literals and not any(v in values for v in literals):
                return None  # every value it may take is in view, and none is one of the values
            confidence = "low"
            continue
        value = _literal(keywords[name], resolver, scope)
        if value is None or value not in values:
            return None  # `dtype=x.dtype`, `dtype=dtype`: nothing says it is one of the values
    if when.min_positional is not None and len(call.args) < when.min_positional:
        if not starred:
            return None
        confidence = "low"
    if when.max_positional is not None:
        if len(call.args) > when.max_positional:
            return None
        if starred:
            confidence = "low"  # `F.softmax(*args)` may pass the argument by position
    if when.int_literal_out_of_dtype:
        dtype = resolver.qualified(keywords["dtype"], scope) if "dtype" in keywords else None
        limits = INT_DTYPES.get((dtype or "").removeprefix("torch."))
        if not limits or not call.args:
            return None
        low, high = limits
        if not any(v < low or v > high for v in _literal_ints(call.args[0])):
            return None
    if when.float_in_data and not (call.args and _has_float(call.args[0], resolver, scope)):
        return None
    if when.argument_dtype is not None:
        family = argument_family(when.argument_dtype[0], call, resolver, scope, dicts)
        if family is None and not (starred or spread) and _first_argument(when.argument_dtype[0], call) is None:
            return None  # not passed at all
        if family is None:
            confidence = "low"  # its dtype is not in view
        elif family not in when.argument_dtype[1]:
            return None
    if when.unless_declared == "tensors" and only_tensors(declared(call, scope), resolver, scope):
        return None  # the code says it loads tensors only
    if when.needs_usage:
        where = region(scope, when.usage_scope)
        usages = usages or Usages()
        if not all(usages.found(pattern, where) for pattern in when.needs_usage):
            return None
    for spec in when.not_bool:
        argument = _argument(spec, call)
        if argument is not None and _known_bool(argument, resolver, scope, dicts):
            return None
    if when.float_bound:
        bounds = [keywords[k] for k in when.float_bound if k in keywords]
        bounds += call.args[0 if method else 1 :]
        floats = [
            b for b in bounds
            if (isinstance(b, ast.Constant) and type(b.value) is float) or resolver.tag(b, scope) == FLOAT
        ]
        tensors = [b for b in bounds if is_tensor(resolver.tag(b, scope))]
        if not floats and not tensors:
            return None
        if input_tag != INT_TENSOR and not tensors:
            # A float literal bound changes nothing on a float tensor, and real code clamps float
            # activations with `min=1e-6` everywhere: without knowing the dtype it is not reported.
            return None
        if input_tag != INT_TENSOR:
            confidence = "low"  # a tensor bound may promote a float16 input, or an integer one
    return weakest(confidence, match.confidence)
