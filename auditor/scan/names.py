"""The resolver: what an expression of one module names (`qualified`) and what it holds (`tag`).

Flow-insensitive and local, in the spirit of vermin and pyflakes: the walk (`collect`) notes
each name's bindings in its scope (`scopes`); a name's bindings are read when it is first
looked up, through the one lookup rule of `scopes.lookup`, and what they make of it is kept.
Imports and aliases give qualified names (`F.dropout2d` -> `torch.nn.functional.dropout2d`);
what torch and numpy calls give is read from the tables of `apis`, as `tags.Tag` values.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Container, Mapping

from auditor.scan.bindings import (
    FROM_WALK,
    UNMAKES_IMPORT,
    Annotated,
    Assignment,
    Binding,
    ForTarget,
    MatchCapture,
    Parameter,
    Unpacking,
)
from auditor.scan.collect import Collector, Site, is_lookup
from auditor.scan.modules import ProjectModules
from auditor.scan.scopes import Conditions, Scope, enclosing_class, key_of, lookup, owner_for
from auditor.scan.tagging import Tagger
from auditor.scan.tags import (
    LOCAL,
    TENSOR,
    Tag,
    is_tensor,
    merge,
)

_BUILTINS = frozenset(dir(builtins))


class Resolver(Tagger):
    """Answers `qualified(expr)` and `tag(expr)` for expressions of one module.

    A name's bindings are read in source order and merged, again when one of them reads the
    name itself (`h = h * 2`), so chains like `a = t * 2; b = a // 3` resolve in any order.
    """

    MAX_DEPTH = 100  # names resolving through names: deeper chains are left unknown

    def __init__(
        self,
        tree: ast.Module,
        fed: Mapping[tuple[str, str], Tag] | None = None,
        modules: ProjectModules | None = None,
        path: str = "",
        attributes: Container[str] | None = None,
    ):
        self.modules = (
            modules  # the project's other modules: constants and re-exports read from there
        )
        self.path = path
        self.scopes: dict[ast.AST, Scope] = {}
        self.referenced: set[str] = set()  # function names used other than by calling them
        self.importable: set[str] = set()  # names imported, or assigned a name, somewhere in it
        self.items_stored: set[str] = set()  # names whose items are assigned (`batch["t"] = v`)
        self.stars = False  # whether the module has a `from m import *`
        self.shadowed: set[int] = set()  # names read inside a module-level `except E as name`
        self.sites: list[Site] = []  # what the checker reads, in the order of a walk
        self.call_sites: list[Site] = []  # those of them that are calls (for `feeds`)
        self._inferring: set[ast.AST] = set()
        self._returns: dict[ast.AST, Tag | None] = {}  # memo of _defined_return_tag
        # memo of qualified(name) per scope (id) and name: the checker reads it to pass names over
        self.names_qualified: dict[tuple[int, str], str | None] = {}
        # (scope, name) whose bindings are being read, innermost last; of those, the ones
        # looked up meanwhile (and so read in part)
        self._resolving: dict[tuple[int, str], None] = {}
        self._reread: set[tuple[int, str]] = set()
        self._callers: dict[ast.AST, list[tuple[ast.Call, Scope, int]]] | None = None
        self._unannotated: dict[
            ast.AST, frozenset[str]
        ] = {}  # function -> its unannotated parameters
        self.relative: dict[str, str] = {}  # module-level names from relative imports -> ".m.name"
        # the tensors every caller in the project's other modules passes the module-level
        # functions' parameters ((function, parameter) -> tag): see `feeds`
        self.fed: Mapping[tuple[str, str], Tag] = fed or {}
        self.asked: set[tuple[str, str]] = set()  # those parameters whose callers were asked for
        self.alternated: set[str] = set()  # keys some scope binds to more than one qualified name
        self.arms: dict[
            int, Conditions
        ] = {}  # alias binding target (id) -> the branches it is bound on
        Collector(self, attributes).collect(tree)
        self.module_classes = self._module_classes()

    def scope_of(self, node: ast.AST) -> Scope:
        return self.scopes[node]

    def maybe_imported(self, name: str) -> bool:
        """Whether `name` can hold a qualified name: imported, aliased, or from a star import."""
        return name in self.importable or (self.stars and name not in _BUILTINS)

    # -- reading bindings -------------------------------------------------------------------

    def _read(self, owner: Scope, key: str, qualified_only: bool = False) -> None:
        """Read `owner`'s bindings of `key` before `key` is: all of them, unless only its
        qualified name is wanted and it has none (no import) nor can one of them make one (`op =
        torch.floor_divide`, `_may_qualify`). While they are being read, note that `key` was read in part."""
        if key not in owner.unread:
            if (id(owner), key) in self._resolving:
                self._reread.add((id(owner), key))
        elif (
            not qualified_only
            or key in owner.qualified
            or any(
                type(b) is Assignment and self._may_qualify(b.value) for b in owner.bindings[key]
            )
        ):
            self._resolve(owner, key)

    def _may_qualify(self, value: ast.expr | None) -> bool:
        """Whether `qualified(value)` can be a name, by the tests it answers None on without
        reading any binding: a binding whose value cannot be one leaves the key unqualified,
        and the key's other bindings (tags) need not be read to know that."""
        kind = value.__class__
        if kind is ast.Name:
            return value.id in self.importable or (self.stars and value.id not in _BUILTINS)  # type: ignore[union-attr]
        if kind is ast.Attribute:
            first: ast.Attribute = value  # type: ignore[assignment]
            while first.value.__class__ is ast.Attribute:
                first = first.value
            root = first.value
            if root.__class__ is ast.Call:
                return is_lookup(root)
            if root.__class__ is not ast.Name:
                return False
            if root.id == "self":
                return "self." + first.attr in self.importable
            return root.id in self.importable or self.stars
        return kind is ast.Call and is_lookup(value)  # type: ignore[arg-type]

    def _resolve(self, owner: Scope, key: str) -> None:
        """Read the bindings of `key` in `owner`, and for a parameter what its callers pass."""
        owner.unread.discard(key)
        bindings = [b for b in owner.bindings[key] if type(b) not in FROM_WALK]
        if len(self._resolving) >= self.MAX_DEPTH:
            owner.tags.setdefault(key, LOCAL)
            return
        marker = (id(owner), key)
        self._resolving[marker] = None
        try:
            if len(self._resolving) == self.MAX_DEPTH // 2:
                # A long chain (a1 = a0 + 1; a2 = a1 + 1; ...): read the scope's other names in
                # source order first, each then finds the one before it read already.
                for other in list(owner.bindings):
                    if other in owner.unread:
                        self._resolve(owner, other)
            for round_ in range(3):
                before = (owner.tags.get(key), owner.qualified.get(key))
                self._reread.discard(marker)
                for binding in bindings:
                    self._bind(self.scopes[binding.where], binding)
                inferred = self._from_callers(owner, key) if round_ == 0 else None
                if inferred is not None:
                    self._bind_tag(owner, key, inferred)
                elif (
                    marker not in self._reread
                    or (owner.tags.get(key), owner.qualified.get(key)) == before
                ):
                    break  # nothing looked it up meanwhile, or reading again changes nothing
        finally:
            del self._resolving[marker]
            self._reread.discard(marker)

    def _bind(self, scope: Scope, binding: Binding) -> None:
        """What one binding, read in `scope` (where its statement runs), makes of its target."""
        target, value = binding.target, binding.value
        key = key_of(target)
        if key is None:
            return
        kind = type(binding)
        if kind in UNMAKES_IMPORT:
            owner = owner_for(key, scope)
            owner.qualified.pop(key, None)
            tag = self.tag(value, scope) if kind is MatchCapture and value is not None else None
            self._bind_tag(owner, key, tag)
        elif kind is Unpacking:
            value_tag = self.tag(value, scope) if value is not None else None
            call_tag = TENSOR if value is not None and self._torch_call(value, scope) else None
            self._bind_tag(scope, key, value_tag if is_tensor(value_tag) else call_tag)
        elif kind is ForTarget:
            self._bind_tag(scope, key, self._iteration_tag(value, scope))
        elif kind is Parameter or kind is Annotated:
            self._bind_tag(scope, key, self._annotation_tag(value, scope))
        else:
            qualified = self.qualified(value, scope) if value is not None else None
            if qualified:
                owner = owner_for(key, scope)
                owner.qualified[key] = qualified
                owner.aliases.add(key)
                records = owner.alias_bindings.setdefault(key, {})
                records[id(target)] = (qualified, self.arms.get(id(target), ()))
                if len(records) > 1:
                    self.alternated.add(key)
                return
            self._bind_tag(scope, key, self.tag(value, scope) if value is not None else None)

    def _bind_tag(self, scope: Scope, key: str, tag: Tag | None) -> None:
        owner = owner_for(key, scope)
        previous = owner.tags.get(key)
        tag = tag or LOCAL
        if previous is None or previous == LOCAL:
            owner.tags[key] = tag
        elif previous != tag:
            owner.tags[key] = merge(previous, tag) or (previous if tag == LOCAL else LOCAL)
        if tag != LOCAL:
            owner.qualified.pop(key, None)

    # -- parameters from their callers --------------------------------------------------------

    def _callee(self, call: ast.Call, scope: Scope) -> tuple[ast.AST, int] | None:
        """The project function a call runs, and how many leading parameters it fills itself."""
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.referenced:
                return None  # also passed around as a value: its callers are not all visible
            owner = lookup(func.id, scope)
            if owner is None or func.id not in owner.functions:
                return None
            return owner.functions[func.id], 0
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
        ):
            cls = enclosing_class(scope)
            if cls is None or func.attr not in cls.functions or func.attr in self.referenced:
                return None
            function = cls.functions[func.attr]
            static = any(
                isinstance(d, ast.Name) and d.id == "staticmethod"
                for d in function.decorator_list  # type: ignore[attr-defined]
            )
            return function, 0 if static else 1
        return None

    def _from_callers(self, owner: Scope, name: str) -> Tag | None:
        """An unannotated parameter is a tensor when every visible call passes it one."""
        function = owner.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        params = function.args
        unannotated = self._unannotated.get(function)
        if unannotated is None:  # asked for each name the function's body binds: kept per function
            named = [*params.posonlyargs, *params.args, *params.kwonlyargs]
            unannotated = self._unannotated[function] = frozenset(
                a.arg for a in named if a.annotation is None
            )
        if name not in unannotated:
            return None
        calls = self._calls_by_callee().get(function)
        external = self._fed(owner, function, name)
        if external == LOCAL:
            return None  # a call in another module passes something else
        if not calls:
            return external
        tags: set[Tag] = {external} if external is not None else set()
        for call, scope, skip in calls:
            if any(isinstance(a, ast.Starred) for a in call.args):
                return None
            positional = [*params.posonlyargs, *params.args][skip:]
            value = next((v for a, v in zip(positional, call.args) if a.arg == name), None)
            if value is None:
                value = next((k.value for k in call.keywords if k.arg == name), None)
            tag = self.tag(value, scope) if value is not None else None
            if tag is None or not is_tensor(tag):
                return None
            tags.add(tag)
        return tags.pop() if len(tags) == 1 else TENSOR

    def _fed(
        self, owner: Scope, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> Tag | None:
        """What the project's other modules pass a module-level function's parameter."""
        if (
            owner.parent is None
            or owner.parent.parent is not None
            or function.name in self.referenced
        ):
            return None  # not at module level, or passed around in its own module
        self.asked.add((function.name, name))
        return self.fed.get((function.name, name))

    def given(
        self, owner: Scope, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> Tag | None:
        """What the project's other modules give a module-level function's parameter, as far as
        None goes (`tags.NONE_GIVEN`, `tags.SET_GIVEN`; None: no call elsewhere is known)."""
        if (
            owner.parent is None
            or owner.parent.parent is not None
            or function.name in self.referenced
        ):
            return None  # not at module level, or passed around in its own module
        self.asked.add((function.name, name + "="))
        return self.fed.get((function.name, name + "="))

    def callers(self, function: ast.AST) -> list[tuple[ast.Call, Scope, int]]:
        """The calls of a function of this module in view (none when it is passed around as a
        value), each with its scope and how many leading parameters it fills itself."""
        return self._calls_by_callee().get(function, [])

    def _calls_by_callee(self) -> dict[ast.AST, list[tuple[ast.Call, Scope, int]]]:
        if self._callers is None:
            self._callers = {}
            for scope in self.scopes.values():
                for call in scope.calls:
                    callee = self._callee(call, scope)
                    if callee is not None:
                        self._callers.setdefault(callee[0], []).append((call, scope, callee[1]))
        return self._callers

    def _module_classes(self) -> frozenset[str]:
        """The project's classes deriving (directly or through each other, in any order of
        declaration) from torch.nn.Module, through its imported names: a fixpoint."""
        found: set[str] = set()
        classes = [
            (name, bases, scope)
            for scope in self.scopes.values()
            for name, bases in scope.classes.items()
        ]
        changed = True
        while changed:
            changed = False
            for name, bases, scope in classes:
                if name not in found and any(
                    (self._imported(base, scope) or "").startswith("torch.nn.")
                    or (isinstance(base, ast.Name) and base.id in found)
                    for base in bases
                ):
                    found.add(name)
                    changed = True
        return frozenset(found)

    # -- qualified names --------------------------------------------------------------------

    def is_alias(self, name: str, scope: Scope) -> bool:
        """Whether `name` is an assignment alias (`op = torch.floor_divide`) rather than an import."""
        if name not in self.importable:
            return False
        owner = lookup(name, scope)
        if owner is None:
            return False
        self._read(owner, name, qualified_only=True)
        return name in owner.qualified and name in owner.aliases

    def _imported(self, expr: ast.AST | None, scope: Scope) -> str | None:
        """`qualified` through imports alone."""
        if isinstance(expr, ast.Name):
            owner = lookup(expr.id, scope)
            return owner.qualified.get(expr.id) if owner is not None else None
        if isinstance(expr, ast.Attribute):
            base = self._imported(expr.value, scope)
            return f"{base}.{expr.attr}" if base else None
        return None

    def _qualified_key(self, key: str, scope: Scope) -> str | None:
        owner = lookup(key, scope)
        if owner is None:
            return self._starred(key, scope) if self.stars and "." not in key else None
        self._read(owner, key, qualified_only=True)
        return owner.qualified.get(key)

    @staticmethod
    def _starred(name: str, scope: Scope | None) -> str | None:
        """A name bound nowhere, from the innermost `from m import *` (builtins stay builtins)."""
        if name in _BUILTINS:
            return None
        while scope is not None:
            if scope.stars:
                return f"{scope.stars[-1]}.{name}"
            scope = scope.parent
        return None

    def qualified(self, expr: ast.AST | None, scope: Scope) -> str | None:
        if isinstance(expr, ast.Name):
            if expr.id not in self.importable and not (self.stars and expr.id not in _BUILTINS):
                return None  # the common case: a local variable, parameter, self
            if self.shadowed and id(expr) in self.shadowed:
                return None  # the exception caught, inside its handler
            memo = (id(scope), expr.id)
            if memo in self.names_qualified:
                return self.names_qualified[memo]
            found = self._qualified_key(expr.id, scope)
            if not self._resolving:  # otherwise it may be known in part yet
                self.names_qualified[memo] = found
            return found
        if isinstance(expr, ast.Attribute):
            # a chain a.b.c: the qualified name of its root (or of `self.a`), then the attributes after it
            first: ast.Attribute = expr
            while first.value.__class__ is ast.Attribute:
                first = first.value
            root = first.value
            named: ast.expr  # the part the base names
            if root.__class__ is ast.Call:  # `f(x).y`: only a lookup by name has a qualified name
                base = self._dynamic(root, scope) if is_lookup(root) else None
                named = root
            elif root.__class__ is not ast.Name:
                return None
            elif root.id == "self":
                key = "self." + first.attr
                base = (
                    self._qualified_key(key, scope) if key in self.importable else None
                )  # self.op = torch.x
                named = first
            elif root.id not in self.importable and not self.stars:
                return None  # the common case: a chain on a local variable
            else:
                base = self.qualified(root, scope)
                named = root
            if not base:
                return None
            attributes = []
            link: ast.expr = expr
            while link is not named:
                attributes.append(link.attr)  # type: ignore[attr-defined]
                link = link.value  # type: ignore[attr-defined]
            attributes.append(base)
            return ".".join(reversed(attributes))
        if expr.__class__ is ast.Call and is_lookup(expr):
            return self._dynamic(expr, scope)
        return None

    def _dynamic(self, call: ast.Call, scope: Scope) -> str | None:
        """`getattr(torch, "load")` and `importlib.import_module("torch")` (or `__import__`) with
        constant names: what they look up, by name."""
        func, args = call.func, call.args
        if call.keywords:
            return None
        if isinstance(func, ast.Name) and lookup(func.id, scope) is None:  # the builtin
            if func.id == "getattr" and len(args) in (2, 3):
                name = _string(args[1])
                base = self.qualified(args[0], scope) if name and name.isidentifier() else None
                return f"{base}.{name}" if base else None
            if func.id == "__import__" and len(args) == 1:
                module = _module_name(args[0])
                return module.split(".")[0] if module else None
            return None
        if len(args) == 1 and self.qualified(func, scope) == "importlib.import_module":
            return _module_name(args[0])
        return None

    def possible(
        self, expr: ast.Name, scope: Scope, conditions: Conditions
    ) -> tuple[tuple[str, Conditions], ...]:
        """The qualified names an alias bound more than one way (`alternated`) may hold at a
        site on the branches `conditions`, each with the branches its binding is on: that of
        the last of its bindings that can reach the site (not on the other arm of a branch the
        site is on), and those of the bindings on the other arm of a branch that one is on (`if
        c: op = torch.a` / `else: op = torch.b`). A binding the last one follows on every run
        (`op = torch.a`, then `if hasattr(...): op = torch.b`) is not one: the test decides, as
        it does for an import in a `try`."""
        qualified = self.qualified(expr, scope)
        owner = lookup(expr.id, scope) if qualified else None
        records = list(owner.alias_bindings.get(expr.id, {}).values()) if owner is not None else []
        reach = [(name, arms) for name, arms in records if not _apart(arms, conditions)]
        if not reach:
            return ((qualified, ()),) if qualified else ()
        last, arms = reach[-1]
        found = {last: arms}
        for other, other_arms in reach[:-1]:
            if _apart(arms, other_arms):
                found.setdefault(other, other_arms)
        return tuple(found.items())

    # -- tags ----------------------------------------------------------------------------------

    def _key_tag(self, key: str, scope: Scope) -> Tag | None:
        owner = lookup(key, scope)
        if owner is None:
            return None
        self._read(owner, key)
        if key in owner.qualified:
            return None
        found = owner.tags.get(key)
        return None if found == LOCAL else found

    def _item_tag(self, container: ast.expr, item: str, scope: Scope) -> Tag | None:
        """`batch["t"]` where every binding of `batch` is a dict display (or `dict(...)`) built
        in view with that key, its items never assigned: the tag of what it was built with."""
        key = key_of(container)
        if key is None or key in self.items_stored:
            return None
        owner = lookup(key, scope)
        if owner is None or key in owner.qualified:
            return None
        found: Tag | None = None
        for binding in owner.bindings.get(key, []):
            if type(binding) is not Assignment or binding.value is None:
                return None
            value = _dict_item(binding.value, item)
            if value is None:
                return None
            tag = self.tag(value, self.scopes[binding.where])
            if not is_tensor(tag):
                return None
            found = tag if found is None else merge(found, tag)
        return found


def _string(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _module_name(node: ast.expr) -> str | None:
    """An absolute module name given as a string constant (a relative one needs its package)."""
    name = _string(node)
    return name if name and not name.startswith(".") else None


def _dict_item(value: ast.expr, item: str) -> ast.expr | None:
    """The value `item` has in a dict display `{"t": v}` or `dict(t=v)`, when it has one."""
    if isinstance(value, ast.Dict):
        found = None
        for k, v in zip(value.keys, value.values):
            if k is None:
                found = None  # `{**other}`: any key may come from there
            elif isinstance(k, ast.Constant) and k.value == item:
                found = v
        return found
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "dict"
        and not value.args
    ):
        return next((k.value for k in value.keywords if k.arg == item), None)
    return None


def _apart(first: Conditions, second: Conditions) -> bool:
    """Whether code on the branches `first` and code on `second` never run in one pass: one is
    on the other arm of a test the other is on."""
    return any(
        test is other and way != other_way
        for test, way, _ in first
        for other, other_way, _ in second
    )
