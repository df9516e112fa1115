"""Name resolution and light type tagging for one module.

Flow-insensitive and local, in the spirit of vermin: imports and assignment aliases give
qualified names (`F.dropout2d` -> `torch.nn.functional.dropout2d`); names bound from torch
constructors, torch results, annotated parameters and arithmetic on those are tagged as
tensors (with a dtype family when it is plain); numpy results, `len()`, `int()`, range
variables and `.shape[i]` are tagged as what they are, so `//` on them is never a tensor's.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from auditor.scan.walk import FastVisitor

TENSOR = "tensor"
INT_TENSOR = "tensor:int"
FLOAT_TENSOR = "tensor:float"
BOOL_TENSOR = "tensor:bool"
MODULE = "module"  # an nn.Module instance: calling it gives a tensor
TORCH_MODULE = "module:torch"  # one of torch.nn's own layers: calling it gives a float tensor
NDARRAY = "ndarray"
INT = "int"
FLOAT = "float"
SHAPE = "shape"
LOCAL = "local"  # bound by the project itself (def, class, plain value): shadows imports

TENSOR_FUNCTION_MODULES = frozenset(
    {"torch", "torch.linalg", "torch.fft", "torch.special", "torch.nn.functional", "torch.sparse"}
)
NOT_TENSOR_FUNCTIONS = frozenset(
    ["device", "dtype", "Size", "Generator", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "manual_seed", "seed", "is_tensor", "is_floating_point", "is_complex", "is_nonzero", "numel", "get_default_dtype", "set_default_dtype", "set_default_tensor_type", "load", "save", "compile", "is_grad_enabled", "use_deterministic_algorithms", "set_printoptions", "set_num_threads", "get_num_threads", "finfo", "iinfo", "broadcast_shapes", "promote_types", "result_type", "can_cast", "typename", "autocast", "is_storage", "get_rng_state", "set_rng_state"]
)
TENSOR_CLASSES = {
    "torch.Tensor": TENSOR,
    "torch.nn.Parameter": FLOAT_TENSOR,
    "torch.nn.parameter.Parameter": FLOAT_TENSOR,
    "torch.FloatTensor": FLOAT_TENSOR,
    "torch.DoubleTensor": FLOAT_TENSOR,
    "torch.HalfTensor": FLOAT_TENSOR,
    "torch.LongTensor": INT_TENSOR,
    "torch.IntTensor": INT_TENSOR,
    "torch.ShortTensor": INT_TENSOR,
    "torch.ByteTensor": INT_TENSOR,
    "torch.CharTensor": INT_TENSOR,
    "torch.BoolTensor": BOOL_TENSOR,
}
# What `torch.tensor(value, dtype=...)` accepts from 1.13 (Python 3.10+): unsigned dtypes still
# wrap negative values (torch.tensor(-1, dtype=torch.uint8) is 255, observed on 2.13.0).
_ANY_NEGATIVE = -(2**63)
INT_DTYPES = {
    "int8": (-(2**7), 2**7 - 1), "uint8": (_ANY_NEGATIVE, 2**8 - 1), "int16": (-(2**15), 2**15 - 1),
    "short": (-(2**15), 2**15 - 1), "int32": (-(2**31), 2**31 - 1), "int": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1), "long": (-(2**63), 2**63 - 1),
    "uint16": (_ANY_NEGATIVE, 2**16 - 1), "uint32": (_ANY_NEGATIVE, 2**32 - 1),
    "uint64": (_ANY_NEGATIVE, 2**64 - 1),
}
FLOAT_DTYPES = frozenset({"float", "float32", "float64", "double", "float16", "half", "bfloat16"})
INT_FACTORIES = frozenset(
    ["randint", "randint_like", "argmax", "argmin", "argsort", "nonzero", "bucketize", "searchsorted", "randperm", "multinomial", "tril_indices", "triu_indices"]
)
FLOAT_FACTORIES = frozenset(
    ["rand", "randn", "rand_like", "randn_like", "normal", "linspace", "logspace", "zeros", "ones", "empty", "eye"]
)
# Results that are floating point whatever the input (or that raise on integer input).
FLOAT_RESULTS = frozenset(
    ["mean", "std", "var", "softmax", "log_softmax", "sigmoid", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "tanh", "norm", "erf", "erfinv", "sin", "cos", "tan", "atan", "asin", "acos", "atan2", "logsumexp", "reciprocal", "cdist", "cosine_similarity", "layer_norm", "batch_norm", "group_norm", "instance_norm", "normalize", "gelu", "silu", "dropout", "linear", "conv1d", "conv2d", "conv3d", "interpolate", "softplus", "logit", "lerp", "cumprod_float", "rand_like", "randn_like"]
)
ARITHMETIC_METHODS = frozenset(["add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "true_divide", "pow"])
INT_METHODS = frozenset(["long", "int", "short", "byte", "char", "argmax", "argmin", "argsort", "nonzero"])
FLOAT_METHODS = frozenset(["float", "double", "half", "bfloat16"])
NOT_TENSOR_METHODS = frozenset(
    ["item", "tolist", "size", "dim", "numel", "numpy", "element_size", "is_contiguous", "data_ptr", "stride", "storage", "get_device", "nelement", "is_floating_point", "ndimension", "equal", "backward", "register_hook", "untyped_storage", "is_complex", "__len__", "__repr__", "__str__"]
)
NOT_TENSOR_ATTRIBUTES = frozenset(["dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "names", "layout"])
SAME_TENSOR_ATTRIBUTES = frozenset(["T", "mT", "H", "mH", "data", "grad"])
INT_BUILTINS = frozenset({"len", "int", "round", "ord", "hash", "id"})


BOOL_RESULTS = frozenset(
    ["bool", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "isreal", "logical_and", "logical_or", "logical_not", "logical_xor", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "equal", "not_equal", "isclose", "isin", "signbit"]
)


def _dtype_family(qualified: str | None) -> str | None:
    if qualified and qualified.startswith("torch."):
        name = qualified[len("torch.") :]
        if name == "bool":
            return BOOL_TENSOR
        if name in INT_DTYPES:
            return INT_TENSOR
        if name in FLOAT_DTYPES:
            return FLOAT_TENSOR
    return None


def is_tensor(tag: str | None) -> bool:
    return tag is not None and tag.startswith(TENSOR)


def is_module(tag: str | None) -> bool:
    return tag is not None and tag.startswith(MODULE)


def _has_float_literal(call: ast.Call) -> bool:
    return any(
        isinstance(a, ast.Constant) and type(a.value) is float for a in [*call.args, *(k.value for k in call.keywords)]
    )


# Where (the node of the scope it is in: a Scope itself would make a reference cycle), target,
# value and how (assign, unpack, for, annotation).
Binding = tuple[ast.AST, ast.expr, "ast.expr | None", str]


@dataclass
class Scope:
    node: ast.AST
    parent: Scope | None
    is_class: bool = False
    qualified: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)  # every name (or self.attr) assigned here
    unresolved: dict[str, list[Binding]] = field(default_factory=dict)  # assignments not read yet
    returns: dict[str, ast.expr] = field(default_factory=dict)  # function name -> return annotation
    functions: dict[str, ast.AST] = field(default_factory=dict)  # function name -> its def
    returned: list[ast.expr] = field(default_factory=list)  # this function's `return` values
    classes: dict[str, list[ast.expr]] = field(default_factory=dict)  # class name -> bases
    aliases: set[str] = field(default_factory=set)  # names bound by `name = qualified.thing`
    calls: list[ast.Call] = field(default_factory=list)  # calls of project functions made here

    def binds(self, name: str) -> bool:
        return name in self.declared or name in self.qualified or name in self.tags


class Resolver:
    """Answers `qualified(expr)` and `tag(expr)` for expressions of one module.

    One walk collects the scopes, their imports and definitions, and each name's assignments;
    an assignment is read only when its name is first looked up (most never are: a scan asks
    about the operands of a few operators and the receivers of a few methods). A name's
    assignments are read in source order and merged, again when one of them reads the name
    itself (`h = h * 2`), so chains like `a = t * 2; b = a // 3` resolve in any order.
    """

    MAX_DEPTH = 100  # names resolving through names: deeper chains are left unknown

    def __init__(self, tree: ast.Module):
        self.scopes: dict[ast.AST, Scope] = {}
        self._inferring: set[ast.AST] = set()
        self.referenced: set[str] = set()  # function names used other than by calling them
        self.importable: set[str] = set()  # names imported, or assigned a name, somewhere in it
        self.sites: list[Site] = []  # what the checker reads, in the order of a walk
        self._returns: dict[ast.AST, str | None] = {}  # memo of _defined_return_tag
        self._qualified: dict[tuple[int, str], str | None] = {}  # memo of qualified(name) per scope
        # (scope, name) whose assignments are being read, innermost last; of those, the ones
        # looked up meanwhile (and so read in part)
        self._resolving: dict[tuple[int, str], None] = {}
        self._reread: set[tuple[int, str]] = set()
        self._callers: dict[ast.AST, list[tuple[ast.Call, Scope, int]]] | None = None
        _Collector(self).collect(tree)
        self.module_classes = self._module_classes()

    # -- building ---------------------------------------------------------------------------

    def _callee(self, call: ast.Call, scope: Scope) -> tuple[ast.AST, int] | None:
        """The project function a call runs, and how many leading parameters it fills itself."""
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.referenced:
                return None  # also passed around as a value: its callers are not all visible
            current: Scope | None = scope
            first = True
            while current is not None:
                if current.is_class and not first:
                    current = current.parent
                    continue
                if func.id in current.functions:
                    return current.functions[func.id], 0
                if current.binds(func.id):
                    return None
                first = False
                current = current.parent
            return None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            owner: Scope | None = scope
            while owner is not None and not owner.is_class:
                owner = owner.parent
            if owner is None or func.attr not in owner.functions or func.attr in self.referenced:
                return None
            function = owner.functions[func.attr]
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                         for d in function.decorator_list)  # type: ignore[attr-defined]
            return function, 0 if static else 1
        return None

    def _from_callers(self, owner: Scope, name: str) -> str | None:
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
        """The project's classes deriving (directly or through each other) from torch.nn.Module,
        through its imported names (reading assignments would need this answer already)."""
        found: set[str] = set()
        for _ in range(3):
            for scope in self.scopes.values():
                for name, bases in scope.classes.items():
                    for base in bases:
                        qualified = self._imported(base, scope)
                        if (qualified or "").startswith("torch.nn.") or (
                            isinstance(base, ast.Name) and base.id in found
                        ):
                            found.add(name)
        return frozenset(found)

    def _resolve(self, owner: Scope, key: str) -> None:
        """Read the assignments of `key` in `owner`, and for a parameter what its callers pass."""
        bindings = owner.unresolved.pop(key)
        if len(self._resolving) >= self.MAX_DEPTH:
            owner.tags.setdefault(key, LOCAL)
            return
        marker = (id(owner), key)
        self._resolving[marker] = None
        try:
            if len(self._resolving) == self.MAX_DEPTH // 2:
                # A long chain (a1 = a0 + 1; a2 = a1 + 1; ...): read the scope's other names in
                # source order first, each then finds the one before it read already.
                for other in list(owner.unresolved):
                    if other in owner.unresolved:
                        self._resolve(owner, other)
            for round_ in range(3):
                before = (owner.tags.get(key), owner.qualified.get(key))
                self._reread.discard(marker)
                for where, target, value, how in bindings:
                    self._bind(self.scopes[where], target, value, how)
                inferred = self._from_callers(owner, key) if round_ == 0 else None
                if inferred is not None:
                    self._bind_tag(owner, ast.Name(key), inferred)
                elif marker not in self._reread or (owner.tags.get(key), owner.qualified.get(key)) == before:
                    break  # nothing looked it up meanwhile, or reading again changes nothing
        finally:
            del self._resolving[marker]
            self._reread.discard(marker)

    def _bind(self, scope: Scope, target: ast.expr, value: ast.expr | None, how: str) -> None:
        if how == "unpack":
            value_tag = self.tag(value, scope) if value is not None else None
            call_tag = TENSOR if value is not None and self._torch_call(value, scope) else None
            self._bind_tag(scope, target, value_tag if is_tensor(value_tag) else call_tag)
            return
        if how == "for":
            self._bind_tag(scope, target, self._iteration_tag(value, scope))
            return
        if how == "annotation":
            self._bind_tag(scope, target, self._annotation_tag(value, scope))
            return
        qualified = self.qualified(value, scope) if value is not None else None
        if qualified and isinstance(target, ast.Name):
            scope.qualified[target.id] = qualified
            scope.aliases.add(target.id)
            return
        self._bind_tag(scope, target, self.tag(value, scope) if value is not None else None)

    def _bind_tag(self, scope: Scope, target: ast.expr, tag: str | None) -> None:
        key = self.key(target)
        if key is None:
            return
        owner = scope
        if key.startswith("self.") and scope.parent is not None and scope.parent.is_class:
            owner = scope.parent
        previous = owner.tags.get(key)
        tag = tag or LOCAL
        if previous is None or previous == LOCAL:
            owner.tags[key] = tag
        elif previous != tag:
            both_tensors = is_tensor(previous) and is_tensor(tag)
            owner.tags[key] = TENSOR if both_tensors else (previous if tag == LOCAL else LOCAL)
        if tag != LOCAL:
            owner.qualified.pop(key, None)

    @staticmethod
    def key(target: ast.expr) -> str | None:
        if isinstance(target, ast.Name):
            return target.id
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            return f"self.{target.attr}"
        if isinstance(target, ast.Starred):
            return Resolver.key(target.value)
        return None

    def _annotation_tag(self, annotation: ast.expr | None, scope: Scope) -> str | None:
        if annotation is None:
            return None
        if isinstance(annotation, ast.Name) and annotation.id in ("int", "float"):
            return INT if annotation.id == "int" else FLOAT
        for node in ast.walk(annotation):
            qualified = self.qualified(node, scope) if isinstance(node, ast.expr) else None
            if qualified in TENSOR_CLASSES:
                return TENSOR_CLASSES[qualified]
            if isinstance(node, ast.Constant) and node.value in ("torch.Tensor", "Tensor"):
                return TENSOR
        return None

    def _iteration_tag(self, iterable: ast.expr | None, scope: Scope) -> str | None:
        if iterable is None:
            return None
        if isinstance(iterable, ast.Call):
            func = iterable.func
            if isinstance(func, ast.Name) and func.id == "range" and not scope.binds("range"):
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

    # -- lookups ----------------------------------------------------------------------------

    def scope_of(self, node: ast.AST) -> Scope:
        return self.scopes[node]

    @staticmethod
    def _binding_scope(key: str, scope: Scope | None) -> Scope | None:
        """The scope that binds `key` as seen from `scope`, Python's way."""
        first = True
        while scope is not None:
            if scope.is_class and not first and not key.startswith("self."):
                scope = scope.parent  # class bodies are not visible from their methods
                continue
            if scope.binds(key):
                return scope
            first = False
            scope = scope.parent
        return None

    def _lookup(self, key: str, scope: Scope | None) -> tuple[str, str] | None:
        owner = self._binding_scope(key, scope)
        if owner is None:
            return None
        self._read(owner, key)
        if key in owner.qualified:
            return ("qualified", owner.qualified[key])
        return ("tag", owner.tags.get(key, LOCAL))

    def _qualified_name(self, name: str, scope: Scope) -> tuple[Scope | None, str | None]:
        """The scope binding `name` and the qualified name it holds there, reading its
        assignments only when one of them can make it one (`op = torch.floor_divide`) or
        unmake an import: every name of a module is looked up, few are aliases."""
        owner = self._binding_scope(name, scope)
        if owner is None:
            return None, None
        self._read(owner, name, qualified_only=True)
        return owner, owner.qualified.get(name)

    def _read(self, owner: Scope, key: str, qualified_only: bool = False) -> None:
        """Read `owner`'s assignments of `key` before `key` is: all of them, unless only its
        qualified name is wanted and none can make one (`op = torch.floor_divide`) or unmake an
        import. While they are being read, note that `key` was read in part."""
        pending = owner.unresolved.get(key)
        if pending is None:
            if (id(owner), key) in self._resolving:
                self._reread.add((id(owner), key))
        elif not qualified_only or key in owner.qualified or any(
            how == "assign" and isinstance(value, (ast.Name, ast.Attribute)) for _, _, value, how in pending
        ):
            self._resolve(owner, key)

    def is_alias(self, name: str, scope: Scope) -> bool:
        """Whether `name` is an assignment alias (`op = torch.floor_divide`) rather than an import."""
        if name not in self.importable:
            return False
        owner, qualified = self._qualified_name(name, scope)
        return qualified is not None and owner is not None and name in owner.aliases

    def _imported(self, expr: ast.AST | None, scope: Scope) -> str | None:
        """`qualified` through imports alone."""
        if isinstance(expr, ast.Name):
            owner = self._binding_scope(expr.id, scope)
            return owner.qualified.get(expr.id) if owner is not None else None
        if isinstance(expr, ast.Attribute):
            base = self._imported(expr.value, scope)
            return f"{base}.{expr.attr}" if base else None
        return None

    def qualified(self, expr: ast.AST | None, scope: Scope) -> str | None:
        if isinstance(expr, ast.Name):
            if expr.id not in self.importable:
                return None  # the common case: a local variable, parameter, self
            memo = (id(scope), expr.id)
            if memo in self._qualified:
                return self._qualified[memo]
            found = self._qualified_name(expr.id, scope)[1]
            if not self._resolving:  # otherwise it may be known in part yet
                self._qualified[memo] = found
            return found
        if isinstance(expr, ast.Attribute):
            base = self.qualified(expr.value, scope)
            return f"{base}.{expr.attr}" if base else None
        return None

    def tag(self, expr: ast.AST | None, scope: Scope) -> str | None:
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, bool):
                return None
            return INT if isinstance(expr.value, int) else FLOAT if isinstance(expr.value, float) else None
        if isinstance(expr, ast.Name):
            found = self._lookup(expr.id, scope)
            return found[1] if found and found[0] == "tag" and found[1] != LOCAL else None
        if isinstance(expr, ast.Attribute):
            return self._attribute_tag(expr, scope)
        if isinstance(expr, ast.Subscript):
            base = self.tag(expr.value, scope)
            if is_tensor(base) or base == NDARRAY or is_module(base):
                return base  # t[i], arr[i], self.layers[i]
            return INT if base == SHAPE else None
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

    def _attribute_tag(self, expr: ast.Attribute, scope: Scope) -> str | None:
        key = self.key(expr)
        if key is not None and key.startswith("self."):
            found = self._lookup(key, scope)
            if found and found[0] == "tag" and found[1] != LOCAL:
                return found[1]
        if self.qualified(expr, scope):
            return None
        base = self.tag(expr.value, scope)
        if base == NDARRAY and expr.attr != "shape":
            return NDARRAY
        if not is_tensor(base):
            return None
        if expr.attr == "shape":
            return SHAPE
        if expr.attr in SAME_TENSOR_ATTRIBUTES:
            return base
        return None

    def _call_tag(self, call: ast.Call, scope: Scope) -> str | None:
        func = call.func
        qualified = self.qualified(func, scope)
        if qualified:
            return self._qualified_call_tag(qualified, call, scope)
        if isinstance(func, ast.Name):
            if func.id in INT_BUILTINS and not self._binds(func.id, scope):
                return INT if func.id != "round" or len(call.args) < 2 else None
            if func.id == "float" and not self._binds("float", scope):
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
            receiver = self.tag(func.value, scope)
            if is_module(receiver):
                return None  # module methods (.parameters(), .to()) are not tensors
            if receiver == NDARRAY:
                return NDARRAY
            callee = self.tag(func, scope)
            if is_module(callee):
                return FLOAT_TENSOR if callee == TORCH_MODULE else TENSOR  # self.fc(x)
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                returned = self._method_return_tag(func.attr, scope)
                if returned is not None:
                    return returned
            if receiver is None and func.attr in ("to", "type") and call.args:
                family = _dtype_family(self.qualified(call.args[0], scope))
                if family is not None:
                    return family  # x.to(torch.bool): whatever x was, a tensor of that dtype now
            if receiver is None and func.attr == "bool" and not call.args:
                return BOOL_TENSOR
            if not is_tensor(receiver):
                if receiver is None and (
                    func.attr in FLOAT_RESULTS
                    or (func.attr in ARITHMETIC_METHODS and _has_float_literal(call))
                ):
                    return FLOAT  # float-valued, whatever the receiver is
                return None
            if func.attr in NOT_TENSOR_METHODS:
                return None
            if func.attr in INT_METHODS or (
                receiver == BOOL_TENSOR and func.attr in ("sum", "cumsum", "prod", "count_nonzero")
            ):
                return INT_TENSOR  # counting a mask gives integers
            if func.attr in BOOL_RESULTS:
                return BOOL_TENSOR
            if func.attr in FLOAT_METHODS or func.attr in FLOAT_RESULTS:
                return FLOAT_TENSOR
            if func.attr in ARITHMETIC_METHODS and (_has_float_literal(call) or func.attr.startswith("div")):
                return FLOAT_TENSOR
            if func.attr in ("to", "type", "type_as", "new_tensor", "new_zeros", "new_ones", "new_full", "new_empty"):
                dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
                if dtype is not None:
                    return _dtype_family(self.qualified(dtype, scope)) or TENSOR
            if func.attr in ("to", "type", "type_as") and call.args:
                family = _dtype_family(self.qualified(call.args[0], scope))
                if family is not None:
                    return family
                other = self.tag(call.args[0], scope)
                if is_tensor(other) or func.attr == "type_as":
                    return other if is_tensor(other) else TENSOR  # t.to(other), t.type_as(other)
            return receiver
        return None

    def _qualified_call_tag(self, qualified: str, call: ast.Call, scope: Scope) -> str | None:
        if qualified in TENSOR_CLASSES:
            return TENSOR_CLASSES[qualified]
        module, _, name = qualified.rpartition(".")
        if module.startswith("torch.nn") and name[:1].isupper() and name not in ("Module", "Parameter"):
            return TORCH_MODULE
        if qualified.startswith(("numpy.", "pandas.")):
            return NDARRAY
        if module == "torch.nn.init":
            return FLOAT_TENSOR  # initialisers fill parameters, which are floating point
        if module not in TENSOR_FUNCTION_MODULES or not name[:1].islower():
            return None
        if name in NOT_TENSOR_FUNCTIONS or name.startswith(("is_", "get_", "set_")):
            return None
        for keyword in call.keywords:
            if keyword.arg == "dtype":
                return _dtype_family(self.qualified(keyword.value, scope)) or TENSOR
        if name in INT_FACTORIES:
            return INT_TENSOR
        if name in FLOAT_FACTORIES or name in FLOAT_RESULTS:
            return FLOAT_TENSOR
        if name in BOOL_RESULTS:
            return BOOL_TENSOR
        if name in ("tensor", "as_tensor", "arange") and call.args:
            literal = _literal_family(call.args[0]) if name != "arange" else _arange_family(call)
            return literal or TENSOR
        if call.args:
            first = self.tag(call.args[0], scope)
            if is_tensor(first) and name not in ("div", "true_divide", "mean", "std", "var"):
                return first
        return TENSOR

    def _binds(self, name: str, scope: Scope) -> bool:
        return self._binding_scope(name, scope) is not None

    def _return_tag(self, name: str, scope: Scope | None) -> str | None:
        """What calling the project's function `name` gives: its return annotation, else what
        every one of its `return` statements gives when that is a tensor."""
        while scope is not None:
            if name in scope.returns or name in scope.functions:
                return self._defined_return_tag(name, scope)
            if scope.binds(name):
                return None
            scope = scope.parent
        return None

    def _method_return_tag(self, name: str, scope: Scope | None) -> str | None:
        while scope is not None and not scope.is_class:
            scope = scope.parent
        if scope is None:
            return None
        return self._defined_return_tag(name, scope)

    def _defined_return_tag(self, name: str, scope: Scope) -> str | None:
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

    def _binop_tag(self, expr: ast.BinOp, scope: Scope) -> str | None:
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


def _literal_family(node: ast.expr) -> str | None:
    values = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]
    if not values or any(isinstance(v, (str, bytes, complex)) for v in values):
        return None
    if any(isinstance(v, float) for v in values):
        return FLOAT_TENSOR
    return INT_TENSOR if all(isinstance(v, int) and not isinstance(v, bool) for v in values) else None


def _arange_family(call: ast.Call) -> str | None:
    families = {_literal_family(arg) for arg in call.args}
    if families == {INT_TENSOR}:
        return INT_TENSOR
    return FLOAT_TENSOR if FLOAT_TENSOR in families else None


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

# What the checker looks at (`Resolver.sites`): the kinds of nodes it reads, in the order of a
# walk of the module, each with its scope and two facts about where it is: inside the body of
# a `try` that catches missing names (a feature probe), inside an annotation.
CALL, NAME, ATTRIBUTE, FLOOR_DIVIDE, FLOOR_ASSIGN, ASSIGN, CLASS, DECORATOR, IMPORT = range(9)
Site = tuple[int, ast.AST, Scope, bool, bool]


class _Collector(FastVisitor):
    """The one walk of a module: its scopes, their imports and the assignments to tag later, and
    the sites the checker reads (so that it need not walk the module again)."""

    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self.scope: Scope | None = None
        self.call_funcs: set[int] = set()
        self.fallback = False  # inside an except handler: imports there do not replace the try's
        self.guarded = False  # inside a try catching AttributeError/ImportError
        self.in_annotation = False
        self.sites = resolver.sites

    def _site(self, kind: int, node: ast.AST) -> None:
        assert self.scope is not None
        self.sites.append((kind, node, self.scope, self.guarded, self.in_annotation))

    def _annotation(self, node: ast.expr | None) -> None:
        if node is not None:
            outer, self.in_annotation = self.in_annotation, True
            self.visit(node)
            self.in_annotation = outer

    def _decorators(self, decorators: list[ast.expr]) -> None:
        for decorator in decorators:
            self._site(DECORATOR, decorator)
            self.visit(decorator)

    def collect(self, tree: ast.Module) -> None:
        self._enter(tree, is_class=False)

    def _enter(self, node: ast.AST, is_class: bool, params: ast.arguments | None = None) -> None:
        scope = Scope(node, self.scope, is_class=is_class)
        self.resolver.scopes[node] = scope
        outer, self.scope = self.scope, scope
        if params is not None:
            for arg in [*params.posonlyargs, *params.args, *params.kwonlyargs]:
                self._later(ast.Name(arg.arg), arg.annotation, "annotation")
            for extra in (params.vararg, params.kwarg):
                if extra is not None:
                    scope.tags[extra.arg] = LOCAL
        if isinstance(node, COMPREHENSIONS):
            for generator in node.generators:
                self._later(generator.target, generator.iter, "for")
                self.visit(generator.iter)
                for condition in generator.ifs:
                    self.visit(condition)
            body: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        elif isinstance(node, ast.Lambda):
            body = [node.body]
        else:
            body = list(node.body)  # type: ignore[attr-defined]
        for statement in body:
            self.visit(statement)
        self.scope = outer

    def _later(self, target: ast.expr, value: ast.expr | None, how: str) -> None:
        """Note an assignment (or loop, parameter, annotation) of `target` in this scope, to be
        read when first needed. `self.x` set in a method belongs to the class."""
        assert self.scope is not None
        if how == "assign" and isinstance(target, ast.Name) and isinstance(value, (ast.Name, ast.Attribute)):
            self.resolver.importable.add(target.id)  # may be an alias: op = torch.floor_divide
        elements = [target]
        if isinstance(target, (ast.Tuple, ast.List)):
            elements, how = target.elts, "unpack"
        for element in elements:
            key = Resolver.key(element)
            if key is None:
                continue
            owner = self.scope
            if key.startswith("self.") and owner.parent is not None and owner.parent.is_class:
                owner = owner.parent
            owner.declared.add(key)
            owner.unresolved.setdefault(key, []).append((self.scope.node, element, value, how))

    def _local(self, name: str) -> None:
        assert self.scope is not None
        self.scope.qualified.pop(name, None)
        self.scope.tags[name] = LOCAL

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        assert self.scope is not None
        self._decorators(node.decorator_list)
        for outer_part in [*node.args.defaults, *node.args.kw_defaults]:
            if outer_part is not None:
                self.visit(outer_part)
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self._annotation(arg.annotation)
        self._annotation(node.returns)
        self._local(node.name)
        if node.returns is not None:
            self.scope.returns[node.name] = node.returns
        self.scope.functions[node.name] = node
        self._enter(node, is_class=False, params=node.args)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        self._enter(node, is_class=False, params=node.args)

    def _comprehension(self, node: ast.AST) -> None:
        self._enter(node, is_class=False)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        assert self.scope is not None
        self._site(CLASS, node)
        self._decorators(node.decorator_list)
        for outer_part in [*node.bases, *node.keywords]:
            self.visit(outer_part)
        self._local(node.name)
        self.scope.classes[node.name] = list(node.bases)
        self._enter(node, is_class=True)

    def visit_Try(self, node: ast.Try) -> None:
        """`try: from torch.cuda.amp import autocast` / `except ImportError: from torch import
        autocast`: the name is what the try imports wherever that exists (the old releases).

        A bare reference in a try that catches AttributeError or ImportError is a feature probe
        (`_ = torch.cpu.amp.autocast`) written for exactly the version change: not a use."""
        guarded = any(_catches_missing_names(handler.type) for handler in node.handlers)
        outer_guard, self.guarded = self.guarded, self.guarded or guarded
        for statement in node.body:
            self.visit(statement)
        self.guarded = outer_guard
        for handler in node.handlers:
            outer, self.fallback = self.fallback, True
            self.visit(handler)
            self.fallback = outer
        for statement in [*node.orelse, *node.finalbody]:
            self.visit(statement)

    visit_TryStar = visit_Try

    def _import(self, name: str, qualified: str) -> None:
        assert self.scope is not None
        if self.fallback and name in self.scope.qualified:
            return
        self.resolver.importable.add(name)
        self.scope.qualified[name] = qualified
        self.scope.tags.pop(name, None)

    def visit_Import(self, node: ast.Import) -> None:
        self._site(IMPORT, node)
        for alias in node.names:
            if alias.asname:
                self._import(alias.asname, alias.name)
            else:
                top = alias.name.split(".")[0]
                self._import(top, top)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        assert self.scope is not None
        self._site(IMPORT, node)
        if node.level or not node.module:
            for alias in node.names:
                self._local(alias.asname or alias.name)
            return
        for alias in node.names:
            if alias.name != "*":
                self._import(alias.asname or alias.name, f"{node.module}.{alias.name}")

    def visit_Call(self, node: ast.Call) -> None:
        """`self.register_buffer("ids", t)` binds `self.ids` as an assignment would."""
        assert self.scope is not None
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("register_buffer", "register_parameter")
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            target = ast.Attribute(value=ast.Name("self", ast.Load()), attr=node.args[0].value, ctx=ast.Store())
            self._later(target, node.args[1], "assign")
        if isinstance(func, ast.Name) or (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
        ):
            self.scope.calls.append(node)
            self.call_funcs.add(id(func))
        self._site(CALL, node)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.ctx.__class__ is ast.Load:
            self.sites.append((NAME, node, self.scope, self.guarded, self.in_annotation))  # type: ignore[arg-type]
            if id(node) not in self.call_funcs and not self.in_annotation:
                self.resolver.referenced.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.ctx.__class__ is ast.Load:
            self.sites.append((ATTRIBUTE, node, self.scope, self.guarded, self.in_annotation))  # type: ignore[arg-type]
            if (
                id(node) not in self.call_funcs and not self.in_annotation
                and isinstance(node.value, ast.Name) and node.value.id == "self"
            ):
                self.resolver.referenced.add(node.attr)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if node.op.__class__ is ast.FloorDiv:
            self._site(FLOOR_DIVIDE, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if node.op.__class__ is ast.FloorDiv:
            self._site(FLOOR_ASSIGN, node)
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        assert self.scope is not None
        if node.value is not None:
            self.scope.returned.append(node.value)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        assert self.scope is not None
        for target in node.targets:
            self._later(target, node.value, "assign")
        self._site(ASSIGN, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        assert self.scope is not None
        if node.value is not None:
            self._later(node.target, node.value, "assign")
        else:
            self._later(node.target, node.annotation, "annotation")
        self._annotation(node.annotation)
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        assert self.scope is not None
        self._later(node.target, node.value, "assign")
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        assert self.scope is not None
        self._later(node.target, node.iter, "for")
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        assert self.scope is not None
        if node.optional_vars is not None:
            self._later(node.optional_vars, None, "assign")
        self.generic_visit(node)


def _catches_missing_names(handler: ast.expr | None) -> bool:
    names = handler.elts if isinstance(handler, ast.Tuple) else [handler]
    return any(
        n is None or (isinstance(n, ast.Name) and n.id in ("AttributeError", "ImportError", "ModuleNotFoundError"))
        for n in names
    )
