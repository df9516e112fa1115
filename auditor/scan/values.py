"""The value an argument holds, where the code in view shows it: a literal, a name bound once to
a literal (in the function, the module, or a module of the project it is imported from), or a
parameter of the enclosing function, forwarded from its callers with its default.

`torch.load(path, weights_only=weights_only)` inside `def load_ckpt(path, weights_only=None)`
gives None wherever a caller leaves the parameter to its default or passes None: the change a
None decides reaches the forwarding line, which is where a reviewer sets the value.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from auditor.knowledge.entry import Confidence
from auditor.scan.bindings import Assignment, Import, Parameter
from auditor.scan.names import Resolver
from auditor.scan.scopes import Scope, lookup
from auditor.scan.tags import DEFAULT_GIVEN, NONE_GIVEN

UNKNOWN = object()  # nothing in view says what the value is
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_MAX_HOPS = 4  # parameters forwarded through wrappers of wrappers before the value is unknown


@dataclass(frozen=True)
class Forwarded:
    """A parameter of the enclosing function that some run gives None: `confidence` is the most
    that can be claimed (medium when only its default says so, no caller in view passing it)."""

    function: str
    parameter: str
    default: str | None  # the default's source, None for a parameter without one
    confidence: Confidence
    caller: str = "a caller in this module"  # where the call that leaves it None is

    @property
    def note(self) -> str:
        default = f" (default {self.default})" if self.default is not None else ""
        how = (
            "no caller in view sets" if self.confidence != "high" else f"{self.caller} leaves None"
        )
        return f"{self.function}'s parameter `{self.parameter}`{default}, which {how}"


def constant(expr: ast.expr | None, resolver: Resolver, scope: Scope) -> object:
    """The value of a literal, or of a name bound once to one, here or at the top of the module
    of the project it is imported from (UNKNOWN otherwise)."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if not isinstance(expr, ast.Name):
        return UNKNOWN
    owner = lookup(expr.id, scope)
    if owner is None:
        return UNKNOWN
    bindings = owner.bindings.get(expr.id, [])
    if len(bindings) != 1:
        return UNKNOWN
    binding = bindings[0]
    if type(binding) is Assignment and isinstance(binding.value, ast.Constant):
        return binding.value.value
    if type(binding) is Import and resolver.modules is not None and expr.id in owner.qualified:
        found = resolver.modules.constant(
            owner.qualified[expr.id], resolver.path.rpartition("/")[0]
        )
        if found is not None and isinstance(found.value, ast.Constant):
            return found.value.value
    return UNKNOWN


def none_reaches(
    expr: ast.expr, resolver: Resolver, scope: Scope, hops: int = 0
) -> Forwarded | bool:
    """Whether None may be the value of `expr` on some run the code in view shows: True for None
    itself (or a name bound once to it), a `Forwarded` parameter for a parameter of the enclosing
    function that a caller leaves None or that defaults to None, False otherwise (a value, or
    nothing known)."""
    value = constant(expr, resolver, scope)
    if value is not UNKNOWN:
        return value is None
    if not isinstance(expr, ast.Name) or hops >= _MAX_HOPS:
        return False
    owner = lookup(expr.id, scope)
    bindings = owner.bindings.get(expr.id, []) if owner is not None else []
    if (
        owner is None
        or len(bindings) != 1
        or type(bindings[0]) is not Parameter
        or not isinstance(owner.node, _FUNCTIONS)
    ):
        return False
    function = owner.node
    default = _default(function, expr.id)
    outer = owner.parent or owner
    calls = [] if isinstance(function, ast.Lambda) else resolver.callers(function)
    name = "lambda" if isinstance(function, ast.Lambda) else function.name
    shown = ast.unparse(default) if default is not None else None
    elsewhere = (
        None if isinstance(function, ast.Lambda) else resolver.given(owner, function, expr.id)
    )
    none_default = (
        default is not None and none_reaches(default, resolver, outer, hops + 1) is not False
    )
    if elsewhere == NONE_GIVEN or (elsewhere == DEFAULT_GIVEN and none_default):
        return Forwarded(name, expr.id, shown, "high", "a caller in another module")
    if not calls:
        return (
            Forwarded(name, expr.id, shown, "medium")
            if none_default and elsewhere is None
            else False
        )
    for call, call_scope, skip in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            continue  # what it passes is out of view
        passed = _passed(function, call, skip, expr.id)
        if passed is None:
            if none_default:
                return Forwarded(name, expr.id, shown, "high")
        elif none_reaches(passed, resolver, call_scope, hops + 1) is not False:
            return Forwarded(name, expr.id, shown, "high")
    return False


def _default(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, name: str
) -> ast.expr | None:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
        if arg.arg == name:
            return default
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == name:
            return kw_default
    return None


def _passed(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    call: ast.Call,
    skip: int,
    name: str,
) -> ast.expr | None:
    """What `call` passes the parameter `name` (None: it leaves it to its default)."""
    positional = [*function.args.posonlyargs, *function.args.args][skip:]
    for arg, value in zip(positional, call.args):
        if arg.arg == name:
            return value
    return next((k.value for k in call.keywords if k.arg == name), None)
