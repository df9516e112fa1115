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

TENSOR = "tensor"
INT_TENSOR = "tensor:int"
FLOAT_TENSOR = "tensor:float"
MODULE = "module"
NDARRAY = "ndarray"
INT = "int"
FLOAT = "float"
SHAPE = "shape"
LOCAL = "local"  # bound by the project itself (def, class, plain value): shadows imports

TENSOR_FUNCTION_MODULES = frozenset(
    {"torch", "torch.linalg", "torch.fft", "torch.special", "torch.nn.functional", "torch.sparse"}
)
NOT_TENSOR_FUNCTIONS = frozenset(
    "device dtype Size Generator no_grad enable_grad set_grad_enabled inference_mode manual_seed "
    "seed is_tensor is_floating_point is_complex is_nonzero numel get_default_dtype "
    "set_default_dtype set_default_tensor_type load save compile is_grad_enabled "
    "use_deterministic_algorithms set_printoptions set_num_threads get_num_threads finfo iinfo "
    "broadcast_shapes promote_types result_type can_cast typename autocast is_storage "
    "get_rng_state set_rng_state".split()
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
    "torch.BoolTensor": TENSOR,
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
    "randint randint_like argmax argmin argsort nonzero bucketize searchsorted randperm "
    "multinomial tril_indices triu_indices".split()
)
FLOAT_FACTORIES = frozenset("rand randn rand_like randn_like normal linspace logspace".split())
INT_METHODS = frozenset("long int short byte char argmax argmin argsort nonzero".split())
FLOAT_METHODS = frozenset("float double half bfloat16".split())
NOT_TENSOR_METHODS = frozenset(
    "item tolist size dim numel numpy element_size is_contiguous data_ptr stride storage "
    "get_device nelement is_floating_point ndimension equal backward register_hook "
    "untyped_storage is_complex __len__ __repr__ __str__".split()
)
NOT_TENSOR_ATTRIBUTES = frozenset("dtype device ndim is_cuda requires_grad is_leaf names layout".split())
SAME_TENSOR_ATTRIBUTES = frozenset("T mT H mH data grad".split())
INT_BUILTINS = frozenset({"len", "int", "round", "ord", "hash", "id"})


def _dtype_family(qualified: str | None) -> str | None:
    if qualified and qualified.startswith("torch."):
        name = qualified[len("torch.") :]
        if name in INT_DTYPES:
            return INT_TENSOR
        if name in FLOAT_DTYPES:
            return FLOAT_TENSOR
    return None


def is_tensor(tag: str | None) -> bool:
    return tag is not None and tag.startswith(TENSOR)


@dataclass
class Scope:
    node: ast.AST
    parent: Scope | None
    is_class: bool = False
    qualified: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    pending: list[tuple[ast.expr, ast.expr | None, str]] = field(default_factory=list)

    def binds(self, name: str) -> bool:
        return name in self.qualified or name in self.tags


class Resolver:
    """Answers `qualified(expr)` and `tag(expr)` for expressions of one module."""

    def __init__(self, tree: ast.Module):
        self.scopes: dict[ast.AST, Scope] = {}
        _Collector(self).collect(tree)
        for scope in self.scopes.values():
            for _ in range(3):  # reach a fixpoint for chains like a = t * 2; b = a // 3
                for target, value, how in scope.pending:
                    self._bind(scope, target, value, how)

    # -- building ---------------------------------------------------------------------------

    def _bind(self, scope: Scope, target: ast.expr, value: ast.expr | None, how: str) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            value_tag = self.tag(value, scope) if value is not None else None
            call_tag = TENSOR if value is not None and self._torch_call(value, scope) else None
            for element in target.elts:
                self._bind_tag(scope, element, value_tag if is_tensor(value_tag) else call_tag)
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
            return
        self._bind_tag(scope, target, self.tag(value, scope) if value is not None else None)

    def _bind_tag(self, scope: Scope, target: ast.expr, tag: str | None) -> None:
        key = self._key(target)
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
    def _key(target: ast.expr) -> str | None:
        if isinstance(target, ast.Name):
            return target.id
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            return f"self.{target.attr}"
        if isinstance(target, ast.Starred):
            return Resolver._key(target.value)
        return None

    def _annotation_tag(self, annotation: ast.expr | None, scope: Scope) -> str | None:
        if annotation is None:
            return None
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
        if isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts:
            if all(is_tensor(self.tag(e, scope)) for e in iterable.elts):
                return TENSOR
        tag = self.tag(iterable, scope)
        return TENSOR if is_tensor(tag) else None

    def _torch_call(self, value: ast.expr, scope: Scope) -> bool:
        if not isinstance(value, ast.Call):
            return False
        qualified = self.qualified(value.func, scope)
        return bool(qualified and qualified.startswith("torch."))

    # -- lookups ----------------------------------------------------------------------------

    def scope_of(self, node: ast.AST) -> Scope:
        return self.scopes[node]

    def _lookup(self, key: str, scope: Scope | None) -> tuple[str, str] | None:
        first = True
        while scope is not None:
            if scope.is_class and not first and not key.startswith("self."):
                scope = scope.parent  # class bodies are not visible from their methods
                continue
            if key in scope.qualified:
                return ("qualified", scope.qualified[key])
            if key in scope.tags:
                return ("tag", scope.tags[key])
            first = False
            scope = scope.parent
        return None

    def qualified(self, expr: ast.AST | None, scope: Scope) -> str | None:
        if isinstance(expr, ast.Name):
            found = self._lookup(expr.id, scope)
            return found[1] if found and found[0] == "qualified" else None
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
            if is_tensor(base) or base == NDARRAY:
                return base
            return INT if base == SHAPE else None
        if isinstance(expr, ast.Call):
            return self._call_tag(expr, scope)
        if isinstance(expr, ast.BinOp):
            return self._binop_tag(expr, scope)
        if isinstance(expr, ast.UnaryOp):
            return self.tag(expr.operand, scope)
        if isinstance(expr, ast.IfExp):
            body, orelse = self.tag(expr.body, scope), self.tag(expr.orelse, scope)
            return body if body == orelse else None
        return None

    def _attribute_tag(self, expr: ast.Attribute, scope: Scope) -> str | None:
        key = self._key(expr)
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
            if func.id in INT_BUILTINS and not scope.binds(func.id):
                return INT if func.id != "round" or len(call.args) < 2 else None
            if func.id == "float" and not scope.binds("float"):
                return FLOAT
            return TENSOR if self.tag(func, scope) == MODULE else None
        if isinstance(func, ast.Attribute):
            receiver = self.tag(func.value, scope)
            if receiver == MODULE:
                return None  # module methods (.parameters(), .to()) are not tensors
            if receiver == NDARRAY:
                return NDARRAY
            if self.tag(func, scope) == MODULE:
                return TENSOR  # self.fc(x)
            if not is_tensor(receiver):
                return None
            if func.attr in NOT_TENSOR_METHODS:
                return None
            if func.attr in INT_METHODS:
                return INT_TENSOR
            if func.attr in FLOAT_METHODS:
                return FLOAT_TENSOR
            if func.attr in ("to", "type") and call.args:
                return _dtype_family(self.qualified(call.args[0], scope)) or receiver
            return receiver
        return None

    def _qualified_call_tag(self, qualified: str, call: ast.Call, scope: Scope) -> str | None:
        if qualified in TENSOR_CLASSES:
            return TENSOR_CLASSES[qualified]
        module, _, name = qualified.rpartition(".")
        if module == "torch.nn" and name[:1].isupper():
            return MODULE
        if qualified.startswith(("numpy.", "pandas.")):
            return NDARRAY
        if module not in TENSOR_FUNCTION_MODULES or not name[:1].islower():
            return None
        if name in NOT_TENSOR_FUNCTIONS or name.startswith(("is_", "get_", "set_")):
            return None
        for keyword in call.keywords:
            if keyword.arg == "dtype":
                return _dtype_family(self.qualified(keyword.value, scope)) or TENSOR
        if name in INT_FACTORIES:
            return INT_TENSOR
        if name in FLOAT_FACTORIES:
            return FLOAT_TENSOR
        if name in ("tensor", "as_tensor", "arange") and call.args:
            literal = _literal_family(call.args[0]) if name != "arange" else _arange_family(call)
            return literal or TENSOR
        if call.args:
            first = self.tag(call.args[0], scope)
            if is_tensor(first) and name not in ("div", "true_divide", "mean", "std", "var"):
                return first
        return TENSOR

    def _binop_tag(self, expr: ast.BinOp, scope: Scope) -> str | None:
        left, right = self.tag(expr.left, scope), self.tag(expr.right, scope)
        if NDARRAY in (left, right):
            return NDARRAY
        if is_tensor(left) or is_tensor(right):
            if isinstance(expr.op, ast.Div):
                return FLOAT_TENSOR
            families = {left, right}
            if families <= {INT_TENSOR, INT, SHAPE}:
                return INT_TENSOR
            if FLOAT in families or FLOAT_TENSOR in families:
                return FLOAT_TENSOR
            return TENSOR
        if left in (INT, SHAPE) and right in (INT, SHAPE) and not isinstance(expr.op, ast.Div):
            return INT
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


class _Collector(ast.NodeVisitor):
    """First pass: build the scopes, their imports and the assignments to tag later."""

    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self.scope: Scope | None = None

    def collect(self, tree: ast.Module) -> None:
        self._enter(tree, is_class=False)

    def _enter(self, node: ast.AST, is_class: bool, params: ast.arguments | None = None) -> None:
        scope = Scope(node, self.scope, is_class=is_class)
        self.resolver.scopes[node] = scope
        outer, self.scope = self.scope, scope
        if params is not None:
            for arg in [*params.posonlyargs, *params.args, *params.kwonlyargs]:
                scope.pending.append((ast.Name(arg.arg), arg.annotation, "annotation"))
            for extra in (params.vararg, params.kwarg):
                if extra is not None:
                    scope.tags[extra.arg] = LOCAL
        body = node.body if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else [node.body]  # type: ignore[attr-defined]
        for statement in body:
            self.visit(statement)
        self.scope = outer

    def _local(self, name: str) -> None:
        assert self.scope is not None
        self.scope.qualified.pop(name, None)
        self.scope.tags[name] = LOCAL

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for outer_part in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if outer_part is not None:
                self.visit(outer_part)
        self._local(node.name)
        self._enter(node, is_class=False, params=node.args)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._enter(node, is_class=False, params=node.args)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for outer_part in [*node.decorator_list, *node.bases]:
            self.visit(outer_part)
        self._local(node.name)
        self._enter(node, is_class=True)

    def visit_Import(self, node: ast.Import) -> None:
        assert self.scope is not None
        for alias in node.names:
            if alias.asname:
                self.scope.qualified[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.scope.qualified[top] = top
            self.scope.tags.pop(alias.asname or alias.name.split(".")[0], None)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        assert self.scope is not None
        if node.level or not node.module:
            for alias in node.names:
                self._local(alias.asname or alias.name)
            return
        for alias in node.names:
            if alias.name != "*":
                self.scope.qualified[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                self.scope.tags.pop(alias.asname or alias.name, None)

    def visit_Assign(self, node: ast.Assign) -> None:
        assert self.scope is not None
        for target in node.targets:
            self.scope.pending.append((target, node.value, "assign"))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        assert self.scope is not None
        if node.value is not None:
            self.scope.pending.append((node.target, node.value, "assign"))
        else:
            self.scope.pending.append((node.target, node.annotation, "annotation"))
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        assert self.scope is not None
        self.scope.pending.append((node.target, node.value, "assign"))
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        assert self.scope is not None
        self.scope.pending.append((node.target, node.iter, "for"))
        self.generic_visit(node)

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_comprehension(self, node: ast.comprehension) -> None:
        assert self.scope is not None
        self.scope.pending.append((node.target, node.iter, "for"))
        self.generic_visit(node)

    def visit_withitem(self, node: ast.withitem) -> None:
        assert self.scope is not None
        if node.optional_vars is not None:
            self.scope.pending.append((node.optional_vars, None, "assign"))
        self.generic_visit(node)
