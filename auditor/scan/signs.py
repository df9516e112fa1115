"""Values that are never negative, where the code in view shows it: `a // b` truncates and floors
alike when `a` is never negative and `b` is a positive size, so such a line behaves the same on
both sides of the 1.13 change to `//` on tensors.

What is never negative:

- what one of the producers below returns, whatever its input: indices (`argmax`, `argmin`,
  `argsort`, `nonzero`, `searchsorted`, `bucketize`, `multinomial`, `randperm`, the indices of
  `topk`, `sort`, `kthvalue` and of `max`, `min`, `median`, `mode` along a dimension), counts and
  sizes (`len`, `numel`, `count_nonzero`, `bincount`, `.size()`, `.shape`, `.ndim`, `.dim()`),
  absolute values (`abs`);
- `arange` of arguments that are never negative;
- a non-negative number; the sum, product, quotient, remainder or power of values that are
  never negative; an item (`x[i]`), a conversion (`.long()`, `.to(...)`) or a reduction (`.sum()`,
  `.max()`, `.cumsum()`) of one;
- the sum of a mask: a comparison, a `.bool()`, a bool tensor, or, by the naming habit of 0/1
  masks, a name ending in `mask` (`MASK_NAME`: an additive mask of -inf would break the habit,
  so a finding that rests on such a name is kept, at low confidence);
- a name bound only to such values (simple assignments, or the indices' place of an unpacked
  `topk`), and a parameter every call in view passes such a value.

Subtraction, negation and everything else are of unknown sign.
"""

from __future__ import annotations

import ast
import enum

from auditor.scan.bindings import Assignment, Binding, Parameter, Unpacking
from auditor.scan.names import Resolver
from auditor.scan.scopes import Scope, key_of, lookup
from auditor.scan.tags import BOOL_TENSOR, is_tensor


class Sign(enum.IntEnum):
    """How sure the code in view makes a value's sign: the weakest link of a proof decides."""

    UNKNOWN = 0
    BY_NAME = 1  # never negative, if a name ending in `mask` holds 0/1 values
    NEVER_NEGATIVE = 2


# Producers whose results are never negative, whatever they are given (a function's last part,
# or a method's name).
NON_NEGATIVE_RESULTS = frozenset(
    {
        "argmax",
        "argmin",
        "argsort",
        "nonzero",
        "searchsorted",
        "bucketize",
        "multinomial",
        "randperm",
        "numel",
        "count_nonzero",
        "bincount",
        "size",
        "dim",
        "abs",
        "len",
    }
)
# Producers of (values, indices): element 1, or `.indices`, is never negative.
WITH_INDICES = frozenset({"topk", "sort", "kthvalue"})
WITH_INDICES_ALONG_A_DIMENSION = frozenset(
    {"max", "min", "median", "mode", "nanmedian"}
)  # only with a dim
# Methods that keep a value's sign: conversions and reductions.
KEEPS_SIGN = frozenset(
    {
        "long",
        "int",
        "float",
        "double",
        "half",
        "short",
        "to",
        "type",
        "item",
        "clone",
        "detach",
        "cpu",
        "cuda",
        "sum",
        "prod",
        "cumsum",
        "cumprod",
        "max",
        "min",
        "amax",
        "amin",
        "mean",
        "view",
        "reshape",
        "flatten",
        "squeeze",
        "unsqueeze",
        "contiguous",
        "tolist",
        "numpy",
        "expand",
        "expand_as",
        "repeat",
        "permute",
        "transpose",
        "t",
        "narrow",
        "select",
        "index_select",
        "gather",
        "flip",
        "roll",
        "unique",
    }
)
SUMS = frozenset({"sum", "cumsum", "count_nonzero"})
MASK_NAME = "mask"
_SAME_SIGN = (ast.Add, ast.Mult, ast.FloorDiv, ast.Pow, ast.Div)
_ATTRIBUTES = frozenset({"shape", "ndim", "indices"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_MAX_DEPTH = 12  # names and parameters followed before a value counts as unknown


class Signs:
    """`of(expr, scope)`: how sure the code in view makes it that `expr` is never negative."""

    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self._following: set[tuple[int, str]] = set()

    def floor_agrees(self, node: ast.BinOp, scope: Scope) -> Sign:
        """Whether `node.left // node.right` truncates and floors alike: a dividend never negative
        over a divisor never negative, or over a plain name that is no tensor (a size, a stride,
        a factor: what `//` divides by)."""
        divisor = node.right
        plain = isinstance(divisor, (ast.Name, ast.Attribute)) and not is_tensor(
            self.resolver.tag(divisor, scope)
        )
        divisor_sign = Sign.NEVER_NEGATIVE if plain else self.of(divisor, scope)
        return min(self.of(node.left, scope), divisor_sign)

    def of(self, expr: ast.expr, scope: Scope, depth: int = 0) -> Sign:
        if depth > _MAX_DEPTH:
            return Sign.UNKNOWN
        if isinstance(expr, ast.Constant):
            value = expr.value
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
            return Sign.NEVER_NEGATIVE if ok else Sign.UNKNOWN
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, ast.Mod):  # takes the divisor's sign, in Python and in torch
                return self.of(expr.right, scope, depth + 1)
            if not isinstance(expr.op, _SAME_SIGN):
                return Sign.UNKNOWN
            return min(self.of(expr.left, scope, depth + 1), self.of(expr.right, scope, depth + 1))
        if isinstance(expr, ast.Subscript):
            if _indices_of(expr.value, expr.slice, self.resolver, scope):
                return Sign.NEVER_NEGATIVE
            return self.of(expr.value, scope, depth + 1)  # an item of a value never negative
        if isinstance(expr, ast.Attribute):
            if expr.attr in _ATTRIBUTES and (
                expr.attr != "indices" or _produces_indices(expr.value, self.resolver, scope)
            ):
                return Sign.NEVER_NEGATIVE
            return self._name(expr, scope, depth)
        if isinstance(expr, ast.Name):
            return self._name(expr, scope, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, scope, depth)
        return Sign.UNKNOWN

    def _call(self, call: ast.Call, scope: Scope, depth: int) -> Sign:
        name = _callee_name(call, self.resolver, scope)
        if name is None:
            return Sign.UNKNOWN
        if name in NON_NEGATIVE_RESULTS:
            return Sign.NEVER_NEGATIVE
        if name == "arange":
            given = [
                *call.args,
                *(k.value for k in call.keywords if k.arg in ("start", "end", "step")),
            ]
            return min((self.of(a, scope, depth + 1) for a in given), default=Sign.UNKNOWN)
        if (
            name in KEEPS_SIGN
            and isinstance(call.func, ast.Attribute)
            and self.resolver.qualified(call.func, scope) is None
        ):
            receiver = call.func.value
            sign = self.of(receiver, scope, depth + 1)
            return max(sign, self._mask(receiver, scope)) if name in SUMS else sign
        return Sign.UNKNOWN

    def _mask(self, expr: ast.expr, scope: Scope) -> Sign:
        """Whether `expr` holds 0/1 (or bool) values: a comparison, a bool tensor, a `.bool()`, a
        conversion of one, or a name ending in `mask`."""
        while (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in KEEPS_SIGN
        ):
            expr = expr.func.value  # attention_mask.long()
        if isinstance(expr, ast.Compare) or self.resolver.tag(expr, scope) == BOOL_TENSOR:
            return Sign.NEVER_NEGATIVE
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == "bool"
        ):
            return Sign.NEVER_NEGATIVE
        last = (
            expr.id
            if isinstance(expr, ast.Name)
            else expr.attr
            if isinstance(expr, ast.Attribute)
            else ""
        )
        return Sign.BY_NAME if last.lower().endswith(MASK_NAME) else Sign.UNKNOWN

    def _name(self, expr: ast.Name | ast.Attribute, scope: Scope, depth: int) -> Sign:
        """A name (or `self.x`) bound only to values never negative, or a parameter every call in
        view passes one."""
        key = key_of(expr)
        owner = lookup(key, scope) if key is not None else None
        if key is None or owner is None:
            return Sign.UNKNOWN
        if (id(owner), key) in self._following:
            return Sign.NEVER_NEGATIVE  # `x = x.flatten()`: the other bindings decide
        bindings = owner.bindings.get(key, [])
        if not bindings:
            return Sign.UNKNOWN
        self._following.add((id(owner), key))
        try:
            bound = min(self._binding(b, owner, key, depth) for b in bindings)
            return min(bound, self._changes(owner, key, depth)) if bound else bound
        finally:
            self._following.discard((id(owner), key))

    def _changes(self, owner: Scope, key: str, depth: int) -> Sign:
        """What the statements that change a value in place keep of its sign: `x[i] = v`,
        `x += v` and `x.op_(...)` (an in-place method), anywhere in the scope it lives in."""
        sign = Sign.NEVER_NEGATIVE
        for node in ast.walk(owner.node):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and key_of(target.value) == key:
                        sign = min(
                            sign, self.of(node.value, self.resolver.scope_of(owner.node), depth + 1)
                        )
            elif isinstance(node, ast.AugAssign) and key_of(node.target) == key:
                keeps = isinstance(node.op, _SAME_SIGN)
                sign = min(
                    sign,
                    self.of(node.value, self.resolver.scope_of(owner.node), depth + 1)
                    if keeps
                    else Sign.UNKNOWN,
                )
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr.endswith("_")
                and not node.func.attr.startswith("_")
                and key_of(node.func.value) == key
            ):
                sign = Sign.UNKNOWN
            if not sign:
                break
        return sign

    def _binding(self, binding: Binding, owner: Scope, key: str, depth: int) -> Sign:
        if type(binding) is Assignment and binding.value is not None:
            return self.of(binding.value, self.resolver.scopes[binding.where], depth + 1)
        if type(binding) is Unpacking and binding.value is not None:
            place = _place(binding.where, binding.target, binding.value)
            where = self.resolver.scopes[binding.where]
            if place == 1 and _produces_indices(binding.value, self.resolver, where):
                return Sign.NEVER_NEGATIVE
            return Sign.UNKNOWN
        if type(binding) is Parameter and isinstance(owner.node, _FUNCTIONS):
            return self._passed(owner.node, key, depth)
        return Sign.UNKNOWN

    def _passed(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, depth: int
    ) -> Sign:
        calls = self.resolver.callers(function)
        if not calls:
            return Sign.UNKNOWN
        signs = []
        for call, scope, skip in calls:
            positional = [*function.args.posonlyargs, *function.args.args][skip:]
            value = next((v for a, v in zip(positional, call.args) if a.arg == name), None)
            if value is None:
                value = next((k.value for k in call.keywords if k.arg == name), None)
            if value is None or any(isinstance(a, ast.Starred) for a in call.args):
                return Sign.UNKNOWN
            signs.append(self.of(value, scope, depth + 1))
        return min(signs)


def _callee_name(call: ast.Call, resolver: Resolver, scope: Scope) -> str | None:
    """The last part of what a call runs: a torch or numpy function, a builtin, or a method."""
    func = call.func
    qualified = resolver.qualified(func, scope)
    if qualified is not None:
        root, _, last = qualified.partition(".")
        return qualified.rpartition(".")[2] if root in ("torch", "numpy") and last else None
    if isinstance(func, ast.Name):
        builtin = func.id in ("len", "abs") and lookup(func.id, scope) is None
        return func.id if builtin else None
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _produces_indices(expr: ast.expr, resolver: Resolver, scope: Scope) -> bool:
    """A call returning (values, indices): `topk`, `sort`, or `max(x, dim)` and the like."""
    if not isinstance(expr, ast.Call):
        return False
    name = _callee_name(expr, resolver, scope)
    if name in WITH_INDICES:
        return True
    if name in WITH_INDICES_ALONG_A_DIMENSION:
        method = (
            isinstance(expr.func, ast.Attribute) and resolver.qualified(expr.func, scope) is None
        )
        return len(expr.args) >= (1 if method else 2) or any(k.arg == "dim" for k in expr.keywords)
    return False


def _indices_of(value: ast.expr, index: ast.expr, resolver: Resolver, scope: Scope) -> bool:
    """`torch.topk(x, k)[1]`."""
    return (
        isinstance(index, ast.Constant)
        and index.value == 1
        and _produces_indices(value, resolver, scope)
    )


def _place(where: ast.AST, target: ast.AST, value: ast.expr) -> int | None:
    """The place of `target` in the tuple it is unpacked with from `value`."""
    for node in ast.walk(where):
        if isinstance(node, ast.Assign) and node.value is value:
            for tuple_ in node.targets:
                if isinstance(tuple_, (ast.Tuple, ast.List)):
                    for place, element in enumerate(tuple_.elts):
                        if element is target:
                            return place
    return None
