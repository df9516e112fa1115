"""What an expression holds: the `Tag` of each kind of expression, from the torch and numpy
facts of `apis` and what the resolver knows of names (`Tagger` is the resolver's half that
types; `names.Resolver` supplies the lookups it rests on)."""

from __future__ import annotations

import ast

from auditor.scan import apis
from auditor.scan.scopes import Scope, enclosing_class, key_of, lookup
from auditor.scan.tags import (
    BOOL_TENSOR,
    FLOAT,
    FLOAT_TENSOR,
    INT,
    INT_TENSOR,
    MODULE,
    NDARRAY,
    SHAPE,
    TENSOR,
    Tag,
    instance,
    is_module,
    is_tensor,
    owner_of,
)

PROJECT = "<project>"  # the owner prefix of instances of the project's own plain classes
_HANDS_OUT = frozenset({"__getattr__", "__getattribute__", "__new__"})


class Tagger:
    """`tag(expr, scope)`, for a resolver that answers the lookups below."""

    scopes: dict[ast.AST, Scope]
    module_classes: frozenset[str]
    _inferring: set[ast.AST]
    _returns: dict[ast.AST, Tag | None]
    _resolving: dict[tuple[int, str], None]
    shadowed: set[int]

    def qualified(self, expr: ast.AST | None, scope: Scope) -> str | None:
        raise NotImplementedError

    def _key_tag(self, key: str, scope: Scope) -> Tag | None:
        """The tag of a name (or `self.attr`) as bound where `scope` sees it."""
        raise NotImplementedError

    def _item_tag(self, container: ast.expr, item: str, scope: Scope) -> Tag | None:
        """The tag of `container[item]` from the bindings of `container`."""
        raise NotImplementedError

    def tag(self, expr: ast.AST | None, scope: Scope) -> Tag | None:
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, bool):
                return None
            return (
                INT
                if isinstance(expr.value, int)
                else FLOAT
                if isinstance(expr.value, float)
                else None
            )
        if isinstance(expr, ast.Name):
            if self.shadowed and id(expr) in self.shadowed:
                return None  # the exception caught, inside its handler
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
        if (
            base is None
            and isinstance(expr.slice, ast.Constant)
            and isinstance(expr.slice.value, str)
        ):
            return self._item_tag(expr.value, expr.slice.value, scope)
        return None

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
            if owner is not None and (
                _listed_class(owner) is not None or node is _bare(annotation)
            ):
                return instance(
                    owner
                )  # an unlisted class only as the whole annotation, not List[Stream]
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
            if self._plain_class(func.id, scope):
                return instance(f"{PROJECT}.{func.id}")  # Histogram(...): its methods are its own
            callee = self.tag(func, scope)
            if is_module(callee):
                return FLOAT_TENSOR if is_torch_module(callee) else TENSOR
            return self._return_tag(func.id, scope)
        if isinstance(func, ast.Subscript):
            callee = self.tag(func, scope)
            if is_module(callee):  # self.layers[i](x)
                return FLOAT_TENSOR if is_torch_module(callee) else TENSOR
            return None
        if isinstance(func, ast.Attribute):
            return self._method_tag(call, func, scope)
        return None

    def _plain_class(self, name: str, scope: Scope) -> bool:
        """Whether `name` is a class defined once in view with no base but `object`, no metaclass
        and nothing that could hand out another object (`__getattr__`, `__new__`): its instances
        are the project's own, never tensors or arrays, so `h.ptp()` is its own method."""
        owner = lookup(name, scope)
        if owner is None or name not in owner.classes:
            return False
        bindings = owner.bindings.get(name, [])
        node = bindings[0].target if len(bindings) == 1 else None
        if not isinstance(node, ast.ClassDef) or node.keywords:
            return False
        if any(not (isinstance(b, ast.Name) and b.id == "object") for b in node.bases):
            return False
        return not any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in _HANDS_OUT
            for s in node.body
        )

    def _method_tag(self, call: ast.Call, func: ast.Attribute, scope: Scope) -> Tag | None:
        receiver = self.tag(func.value, scope)
        if is_module(receiver) or (receiver is not None and receiver.kind == "object"):
            return (
                None  # module and optimizer methods (.parameters(), .to(), .step()) are not tensors
            )
        if receiver == NDARRAY:
            return NDARRAY
        callee = self.tag(func, scope)
        if is_module(callee):
            return FLOAT_TENSOR if is_torch_module(callee) else TENSOR  # self.fc(x)
        if isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = enclosing_class(scope)
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
        if func.attr == "numpy":
            return NDARRAY  # t.numpy(): an array sharing the tensor's memory
        if func.attr in apis.NOT_TENSOR_METHODS:
            return None
        if receiver == BOOL_TENSOR and func.attr in apis.COUNTING_METHODS:
            return INT_TENSOR  # counting a mask gives integers
        if func.attr in apis.METHOD_RESULTS:
            return apis.METHOD_RESULTS[func.attr]
        if func.attr in apis.ARITHMETIC_METHODS and (
            _has_float_literal(call) or func.attr.startswith("div")
        ):
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
        if qualified in apis.NOT_INSTANCE_CLASSES:
            return apis.NOT_INSTANCE_CLASSES[qualified]
        module, _, name = qualified.rpartition(".")
        if (
            module.startswith("torch.nn")
            and name[:1].isupper()
            and name not in ("Module", "Parameter")
        ):
            return Tag("module", "torch", qualified)  # one of torch.nn's layers, with its class
        if qualified.startswith(apis.ARRAY_MODULES):  # a numpy or pandas value: never a tensor
            return (
                instance(qualified)
                if name in apis.NOT_ARRAY_FUNCTIONS or name[:1].isupper()
                else NDARRAY
            )
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
            if isinstance(expr.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and {left, right} <= {
                BOOL_TENSOR
            }:
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


def _object_class(qualified: str) -> str | None:
    """The class of instances of the torch (torchvision, torchaudio) class `qualified`, when its
    instances are neither tensors nor torch.nn modules."""
    if not qualified.rpartition(".")[2][:1].isupper():
        return None
    if (
        not qualified.startswith(apis.INSTANCE_ROOTS)
        or qualified in apis.NOT_INSTANCE_CLASSES
        or qualified.startswith("torch.nn.")
    ):
        return None
    return qualified


def _bare(annotation: ast.expr) -> ast.expr:
    """The class an annotation names itself: `X`, `Optional[X]`, `X | None`."""
    if isinstance(annotation, ast.Subscript) and isinstance(
        annotation.value, (ast.Name, ast.Attribute)
    ):
        head = (
            annotation.value.id if isinstance(annotation.value, ast.Name) else annotation.value.attr
        )
        if head == "Optional":
            return annotation.slice
    if (
        isinstance(annotation, ast.BinOp)
        and isinstance(annotation.op, ast.BitOr)
        and isinstance(annotation.right, ast.Constant)
        and annotation.right.value is None
    ):
        return annotation.left
    return annotation


def _listed_class(owner: str) -> str | None:
    for prefix, listed in apis.OBJECT_CLASSES:
        if owner.startswith(prefix):
            return listed
    return None


def classes_of(tag: Tag | None) -> tuple[str, ...]:
    """The classes whose methods a value of this tag has, nearest first: its own class, then the
    listed class that class belongs to (`torch.nn.LSTM`, then `torch.nn.Module`; `torch.optim.Adam`,
    then `torch.optim.Optimizer`)."""
    owner = owner_of(tag)
    if owner is None or tag is None:
        return ()
    if tag.kind == "module":
        return (owner,) if owner == "torch.nn.Module" else (owner, "torch.nn.Module")
    if tag.kind == "object":
        listed = _listed_class(owner)
        return (owner,) if listed is None or listed == owner else (owner, listed)
    return (owner,)


def is_torch_module(tag: Tag | None) -> bool:
    """One of torch.nn's own layers (its call gives a float tensor)."""
    return tag is not None and tag.kind == "module" and tag.family == "torch"


def _has_float_literal(call: ast.Call) -> bool:
    return any(
        isinstance(a, ast.Constant) and type(a.value) is float
        for a in [*call.args, *(k.value for k in call.keywords)]
    )
