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

from auditor.scan import apis
from auditor.scan.bindings import (
    Annotated,
    Assignment,
    Binding,
    ForTarget,
    MatchCapture,
    Parameter,
    Unpacking,
)
from auditor.scan.collect import Collector, Site
from auditor.scan.scopes import Scope, key_of, lookup, owner_for
from auditor.scan.tags import (
    BOOL_TENSOR,
    FLOAT,
    FLOAT_TENSOR,
    INT,
    INT_TENSOR,
    LOCAL,
    MODULE,
    NDARRAY,
    SHAPE,
    TENSOR,
    TORCH_MODULE,
    Tag,
    instance,
    is_module,
    is_tensor,
    merge,
)

_BUILTINS = frozenset(dir(builtins))


class Resolver:
    """Answers `qualified(expr)` and `tag(expr)` for expressions of one module.

    A name's bindings are read in source order and merged, again when one of them reads the
    name itself (`h = h * 2`), so chains like `a = t * 2; b = a // 3` resolve in any order.
    """

    MAX_DEPTH = 100  # names resolving through names: deeper chains are left unknown

    def __init__(self, tree: ast.Module):
        self.scopes: dict[ast.AST, Scope] = {}
        self.referenced: set[str] = set()  # function names used other than by calling them
        self.importable: set[str] = set()  # names imported, or assigned a name, somewhere in it
        self.items_stored: set[str] = set()  # names whose items are assigned (`batch["t"] = v`)
        self.stars = False  # whether the module has a `from m import *`
        self.sites: list[Site] = []  # what the checker reads, in the order of a walk
        self._inferring: set[ast.AST] = set()
        self._returns: dict[ast.AST, Tag | None] = {}  # memo of _defined_return_tag
        self._qualified: dict[tuple[int, str], str | None] = {}  # memo of qualified(name) per scope
        # (scope, name) whose bindings are being read, innermost last; of those, the ones
        # looked up meanwhile (and so read in part)
        self._resolving: dict[tuple[int, str], None] = {}
        self._reread: set[tuple[int, str]] = set()
        self._callers: dict[ast.AST, list[tuple[ast.Call, Scope, int]]] | None = None
        Collector(self).collect(tree)
        self.module_classes = self._module_classes()

    def scope_of(self, node: ast.AST) -> Scope:
        return self.scopes[node]

    def maybe_imported(self, name: str) -> bool:
        """Whether `name` can hold a qualified name: imported, aliased, or from a star import."""
        return name in self.importable or (self.stars and name not in _BUILTINS)

    # -- reading bindings -------------------------------------------------------------------

    def _read(self, owner: Scope, key: str, qualified_only: bool = False) -> None:
        """Read `owner`'s bindings of `key` before `key` is: all of them, unless only its
        qualified name is wanted and none can make one (`op = torch.floor_divide`) or unmake an
        import. While they are being read, note that `key` was read in part."""
        if key not in owner.unread:
            if (id(owner), key) in self._resolving:
                self._reread.add((id(owner), key))
        elif not qualified_only or key in owner.qualified or any(
            b.unmakes_import or (type(b) is Assignment and isinstance(b.value, (ast.Name, ast.Attribute)))
            for b in owner.bindings[key]
        ):
            self._resolve(owner, key)

    def _resolve(self, owner: Scope, key: str) -> None:
        """Read the bindings of `key` in `owner`, and for a parameter what its callers pass."""
        owner.unread.discard(key)
        bindings = [b for b in owner.bindings[key] if b.deferred]
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
                elif marker not in self._reread or (owner.tags.get(key), owner.qualified.get(key)) == before:
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
        if binding.unmakes_import:
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
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = _enclosing_class(scope)
            if cls is None or func.attr not in cls.functions or func.attr in self.referenced:
                return None
            function = cls.functions[func.attr]
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                         for d in function.decorator_list)  # type: ignore[attr-defined]
            return function, 0 if static else 1
        return None

    def _from_callers(self, owner: Scope, name: str) -> Tag | None:
        """An unannotated parameter is a tensor when every visible call passes it one."""
        function = owner.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        params = function.args
        named = [*params.posonlyargs, *params.args, *params.kwonlyargs]
        if not any(a.arg == name and a.annotation is None for a in named):
            return None
        calls = self._calls_by_callee().get(function)
        if not calls:
            return None
        tags = set()
        for call, scope, skip in calls:
            if any(isinstance(a, ast.Starred) for a in call.args):
                return None
            positional = [*params.posonlyargs, *params.args][skip:]
            value = next((v for a, v in zip(positional, call.args) if a.arg == name), None)
            if value is None:
                value = next((k.value for k in call.keywords if k.arg == name), None)
            tag = self.tag(value, scope) if value is not None else None
            if not is_tensor(tag):
                return None
            tags.add(tag)
        return tags.pop() if len(tags) == 1 else TENSOR

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
        classes = [(name, bases, scope) for scope in self.scopes.values() for name, bases in scope.classes.items()]
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
            if not self.maybe_imported(expr.id):
                return None  # the common case: a local variable, parameter, self
            memo = (id(scope), expr.id)
            if memo in self._qualified:
                return self._qualified[memo]
            found = self._qualified_key(expr.id, scope)
            if not self._resolving:  # otherwise it may be known in part yet
                self._qualified[memo] = found
            return found
        if isinstance(expr, ast.Attribute):
            value = expr.value
            if isinstance(value, ast.Name) and value.id == "self":
                key = f"self.{expr.attr}"
                return self._qualified_key(key, scope) if key in self.importable else None  # self.op = torch.x
            base = self.qualified(value, scope)
            return f"{base}.{expr.attr}" if base else None
        return None

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

    def tag(self, expr: ast.AST | None, scope: Scope) -> Tag | None:
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, bool):
                return None
            return INT if isinstance(expr.value, int) else FLOAT if isinstance(expr.value, float) else None
        if isinstance(expr, ast.Name):
            return self._key_tag(expr.id, scope)
        if isinstance(expr, ast.Attribute):
            return self._attribute_tag(expr, scope)
        if isinstance(expr, ast.Subscript):
            return self._subscript_tag(expr, scope)
        if isinstance(expr, ast.Call):
            return self._call_tag(expr, scope)
        if isinstance(expr, ast.BinOp):
            return self._binop_tag(expr, scope)
        if isinstance(expr, ast.UnaryOp):
            return None if isinstance(expr.op, ast.Not) else self.tag(expr.operand, scope)
        if isinstance(expr, ast.Compare):
            operands = [expr.left, *expr.comparators]
            return BOOL_TENSOR if any(is_tensor(self.tag(o, scope)) for o in operands) else None
        if isinstance(expr, ast.IfExp):
            body, orelse = self.tag(expr.body, scope), self.tag(expr.orelse, scope)
            return body if body == orelse else None
        if isinstance(expr, ast.Await):
            return self.tag(expr.value, scope)
        return None

    def _subscript_tag(self, expr: ast.Subscript, scope: Scope) -> Tag | None:
        base = self.tag(expr.value, scope)
        if is_tensor(base) or base == NDARRAY or is_module(base):
            return base  # t[i], arr[i], self.layers[i]
        if base == SHAPE:
            return INT
        if base is None and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
            return self._item_tag(expr.value, expr.slice.value, scope)
        return None

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

    def _attribute_tag(self, expr: ast.Attribute, scope: Scope) -> Tag | None:
        key = key_of(expr)
        if key is not None:
            found = self._key_tag(key, scope)
            if found is not None:
                return found
        if self.qualified(expr, scope):
            return None
        base = self.tag(expr.value, scope)
        if base == NDARRAY:
            return None if expr.attr in apis.NOT_ARRAY_ATTRIBUTES else NDARRAY
        if not is_tensor(base):
            return None
        if expr.attr == "shape":
            return SHAPE
        if expr.attr in apis.SAME_TENSOR_ATTRIBUTES:
            return base
        return None

    def _annotation_tag(self, annotation: ast.expr | None, scope: Scope) -> Tag | None:
        if annotation is None:
            return None
        if isinstance(annotation, ast.Name) and annotation.id in ("int", "float"):
            return INT if annotation.id == "int" else FLOAT
        for node in ast.walk(annotation):
            qualified = self.qualified(node, scope) if isinstance(node, ast.expr) else None
            if qualified in apis.TENSOR_CLASSES:
                return apis.TENSOR_CLASSES[qualified]
            if qualified in apis.ARRAY_CLASSES:
                return NDARRAY
            owner = _object_class(qualified) if qualified is not None else None
            if owner is not None:
                return instance(owner)
            if isinstance(node, ast.Constant) and node.value in ("torch.Tensor", "Tensor"):
                return TENSOR
        return None

    def _iteration_tag(self, iterable: ast.expr | None, scope: Scope) -> Tag | None:
        if iterable is None:
            return None
        if isinstance(iterable, ast.Call):
            func = iterable.func
            if isinstance(func, ast.Name) and func.id == "range" and lookup("range", scope) is None:
                return INT
            if isinstance(func, ast.Attribute) and func.attr == "parameters":
                return FLOAT_TENSOR
        literal = isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts
        if literal and all(is_tensor(self.tag(e, scope)) for e in iterable.elts):  # type: ignore[attr-defined]
            return TENSOR
        tag = self.tag(iterable, scope)
        if is_module(tag):
            return tag  # for layer in self.layers
        return TENSOR if is_tensor(tag) else None

    def _torch_call(self, value: ast.expr, scope: Scope) -> bool:
        if not isinstance(value, ast.Call):
            return False
        qualified = self.qualified(value.func, scope)
        return bool(qualified and qualified.startswith("torch."))

    # -- calls ---------------------------------------------------------------------------------

    def _call_tag(self, call: ast.Call, scope: Scope) -> Tag | None:
        func = call.func
        qualified = self.qualified(func, scope)
        if qualified:
            return self._library_call_tag(qualified, call, scope)
        if isinstance(func, ast.Name):
            if func.id in apis.INT_BUILTINS and lookup(func.id, scope) is None:
                return INT if func.id != "round" or len(call.args) < 2 else None
            if func.id == "float" and lookup("float", scope) is None:
                return FLOAT
            if func.id in self.module_classes:
                return MODULE  # Encoder(...) of a project nn.Module subclass
            callee = self.tag(func, scope)
            if is_module(callee):
                return FLOAT_TENSOR if callee == TORCH_MODULE else TENSOR
            return self._return_tag(func.id, scope)
        if isinstance(func, ast.Subscript):
            callee = self.tag(func, scope)
            if is_module(callee):  # self.layers[i](x)
                return FLOAT_TENSOR if callee == TORCH_MODULE else TENSOR
            return None
        if isinstance(func, ast.Attribute):
            return self._method_tag(call, func, scope)
        return None

    def _method_tag(self, call: ast.Call, func: ast.Attribute, scope: Scope) -> Tag | None:
        receiver = self.tag(func.value, scope)
        if is_module(receiver) or (receiver is not None and receiver.kind == "object"):
            return None  # module and optimizer methods (.parameters(), .to(), .step()) are not tensors
        if receiver == NDARRAY:
            return NDARRAY
        callee = self.tag(func, scope)
        if is_module(callee):
            return FLOAT_TENSOR if callee == TORCH_MODULE else TENSOR  # self.fc(x)
        if isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = _enclosing_class(scope)
            returned = self._defined_return_tag(func.attr, cls) if cls is not None else None
            if returned is not None:
                return returned
        if receiver is None and func.attr in ("to", "type") and call.args:
            family = self._dtype_tag(call.args[0], scope)
            if family is not None:
                return family  # x.to(torch.bool): whatever x was, a tensor of that dtype now
        if receiver is None and func.attr == "bool" and not call.args:
            return BOOL_TENSOR
        if not is_tensor(receiver):
            if receiver is None and (
                func.attr in apis.FLOAT_RESULTS
                or (func.attr in apis.ARITHMETIC_METHODS and _has_float_literal(call))
            ):
                return FLOAT  # float-valued, whatever the receiver is
            return None
        if func.attr in apis.NOT_TENSOR_METHODS:
            return None
        if receiver == BOOL_TENSOR and func.attr in apis.COUNTING_METHODS:
            return INT_TENSOR  # counting a mask gives integers
        if func.attr in apis.METHOD_RESULTS:
            return apis.METHOD_RESULTS[func.attr]
        if func.attr in apis.ARITHMETIC_METHODS and (_has_float_literal(call) or func.attr.startswith("div")):
            return FLOAT_TENSOR
        if func.attr in apis.DTYPE_METHODS:
            dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
            if dtype is not None:
                return self._dtype_tag(dtype, scope) or TENSOR
            if func.attr in ("to", "type", "type_as") and call.args:
                family = self._dtype_tag(call.args[0], scope)
                if family is not None:
                    return family
                other = self.tag(call.args[0], scope)
                if is_tensor(other) or func.attr == "type_as":
                    return other if is_tensor(other) else TENSOR  # t.to(other), t.type_as(other)
        return receiver

    def _dtype_tag(self, expr: ast.expr, scope: Scope) -> Tag | None:
        """The tensor tag a dtype argument (`torch.long`) gives."""
        qualified = self.qualified(expr, scope)
        if not qualified or not qualified.startswith("torch."):
            return None
        name = qualified[len("torch.") :]
        if name == "bool":
            return BOOL_TENSOR
        if name in apis.INT_DTYPES:
            return INT_TENSOR
        return FLOAT_TENSOR if name in apis.FLOAT_DTYPES else None

    def _library_call_tag(self, qualified: str, call: ast.Call, scope: Scope) -> Tag | None:
        if qualified in apis.TENSOR_CLASSES:
            return apis.TENSOR_CLASSES[qualified]
        module, _, name = qualified.rpartition(".")
        if module.startswith("torch.nn") and name[:1].isupper() and name not in ("Module", "Parameter"):
            return TORCH_MODULE
        if qualified.startswith(apis.ARRAY_MODULES):  # a numpy or pandas value: never a tensor
            return instance(qualified) if name in apis.NOT_ARRAY_FUNCTIONS or name[:1].isupper() else NDARRAY
        if module == "torch.nn.init":
            return FLOAT_TENSOR  # initialisers fill parameters, which are floating point
        if name[:1].isupper():
            owner = _object_class(qualified)
            return instance(owner) if owner is not None else None
        if module not in apis.TENSOR_FUNCTION_MODULES:
            return None
        if name in apis.NOT_TENSOR_FUNCTIONS or name.startswith(("is_", "get_", "set_")):
            return None
        for keyword in call.keywords:
            if keyword.arg == "dtype":
                return self._dtype_tag(keyword.value, scope) or TENSOR
        if name in apis.FUNCTION_RESULTS:
            return apis.FUNCTION_RESULTS[name]
        if name in apis.LITERAL_CONSTRUCTORS and call.args:
            return self._data_family(call.args if name == "arange" else call.args[:1], scope)
        if call.args:
            first = self.tag(call.args[0], scope)
            if is_tensor(first) and name not in apis.NOT_SAME_FAMILY:
                return first
        return TENSOR

    def _data_family(self, data: list[ast.expr], scope: Scope) -> Tag:
        """A tensor made from this data: integer when every number in it is an int (a literal,
        or a name known to hold one: `torch.arange(n)`), float when one is a float."""
        families = set()
        for node in data:
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.BinOp)):
                tag = self.tag(node, scope)
                families.add("int" if tag == INT else "float" if tag == FLOAT else None)
                continue
            values = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]
            if not values or any(isinstance(v, (str, bytes, complex)) for v in values):
                families.add(None)
            elif any(isinstance(v, float) for v in values):
                families.add("float")
            else:
                families.add("int" if all(type(v) is int for v in values) else None)
        if "float" in families:
            return FLOAT_TENSOR
        return INT_TENSOR if families == {"int"} else TENSOR

    def _return_tag(self, name: str, scope: Scope) -> Tag | None:
        """What calling the project's function `name` gives: its return annotation, else what
        every one of its `return` statements gives when that is a tensor."""
        owner = lookup(name, scope)
        if owner is None or (name not in owner.returns and name not in owner.functions):
            return None
        return self._defined_return_tag(name, owner)

    def _defined_return_tag(self, name: str, scope: Scope) -> Tag | None:
        if name in scope.returns:
            return self._annotation_tag(scope.returns[name], scope)
        function = scope.functions.get(name)
        if function is None or function in self._inferring:
            return None
        if function in self._returns:
            return self._returns[function]
        body = self.scopes[function]
        self._inferring.add(function)
        try:
            tags = {self.tag(value, body) for value in body.returned}
        finally:
            self._inferring.discard(function)
        result = None
        if tags and all(is_tensor(t) for t in tags):
            result = tags.pop() if len(tags) == 1 else TENSOR
        if not self._resolving:  # otherwise it may rest on names known only in part yet
            self._returns[function] = result
        return result

    def _binop_tag(self, expr: ast.BinOp, scope: Scope) -> Tag | None:
        left, right = self.tag(expr.left, scope), self.tag(expr.right, scope)
        if NDARRAY in (left, right):
            return NDARRAY
        if is_tensor(left) or is_tensor(right):
            if isinstance(expr.op, ast.Div):
                return FLOAT_TENSOR
            if isinstance(expr.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and {left, right} <= {BOOL_TENSOR}:
                return BOOL_TENSOR
            families = {left, right}
            if families <= {INT_TENSOR, INT, SHAPE}:
                return INT_TENSOR
            if FLOAT in families or FLOAT_TENSOR in families:
                return FLOAT_TENSOR
            return TENSOR
        if left in (INT, SHAPE) and right in (INT, SHAPE) and not isinstance(expr.op, ast.Div):
            return INT
        if isinstance(expr.op, ast.Div) or FLOAT in (left, right):
            return FLOAT  # float-valued whatever the operands are (or a float tensor, which // leaves alone)
        return None


def _enclosing_class(scope: Scope | None) -> Scope | None:
    while scope is not None and not scope.is_class:
        scope = scope.parent
    return scope


def _object_class(qualified: str) -> str | None:
    """The class whose methods instances of the library class `qualified` have, if listed."""
    if not qualified.rpartition(".")[2][:1].isupper():
        return None
    for prefix, owner in apis.OBJECT_CLASSES:
        if qualified.startswith(prefix):
            return owner
    return None


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
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and not value.args:
        return next((k.value for k in value.keywords if k.arg == item), None)
    return None


def _has_float_literal(call: ast.Call) -> bool:
    return any(
        isinstance(a, ast.Constant) and type(a.value) is float for a in [*call.args, *(k.value for k in call.keywords)]
    )

