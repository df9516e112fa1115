"""The declared type of a call's result, for conditions that a declaration in view rules out.

`torch.load` defaults to `weights_only=True` from 2.6: tensors, numbers, strings and tuples,
lists and dicts of them load as before; pickled modules and custom classes raise. Where the code
declares what the loaded value is, and that type holds only such things, the flip cannot break
the line (unless the declaration is false, as with any annotation the scanner reads):

    def _try_load(path) -> Tuple[Tensor, Tensor]:
        res = torch.load(path)        # `res` is what the function returns
        ...
        return res

    state: Dict[str, torch.Tensor] = torch.load(path)
    def weights(path) -> "OrderedDict[str, Tensor]": return torch.load(path)

`declared(call, scope)` finds the annotation: of the annotated assignment whose value is the
call, of the function that returns the call, or returns a name bound only to the call (and to
None). `only_tensors(annotation)` says whether it admits nothing but tensors, plain values and
containers of them: `Any`, `object`, a bare `dict` or a class of the project's own do not.
`holds_tensor(call)` reads what the code does with the file instead: a `Parameter` made of the
loaded value, or a tensor saved to the same path.
"""

from __future__ import annotations

import ast

from auditor.scan.bindings import Annotated, Assignment, Unpacking
from auditor.scan.scopes import Scope
from auditor.scan.tagging import Tagger
from auditor.scan.tags import is_tensor

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
PLAIN = frozenset({"int", "float", "str", "bool", "bytes", "None", "complex"})
PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
TENSORS = frozenset({"torch.Tensor", *PARAMETERS})
CONTAINERS = frozenset(
    {
        "typing.Tuple",
        "typing.List",
        "typing.Dict",
        "typing.Optional",
        "typing.Union",
        "typing.Sequence",
        "typing.Mapping",
        "typing.OrderedDict",
        "collections.OrderedDict",
        "typing.DefaultDict",
        "collections.defaultdict",
        "typing_extensions.OrderedDict",
        "tuple",
        "list",
        "dict",
    }
)


def declared(call: ast.Call, scope: Scope) -> ast.expr | None:
    """The annotation that declares the call's result, if the code in view has one."""
    function = scope.node
    body = function.body if isinstance(function, (ast.Module, *FUNCTIONS)) else []
    for statement in _statements(body):
        if isinstance(statement, ast.AnnAssign) and statement.value is call:
            return statement.annotation
        if (
            isinstance(statement, ast.Assign)
            and statement.value is call
            and len(statement.targets) == 1
        ):
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                return _declared_name(target.id, call, scope)
    if isinstance(function, FUNCTIONS) and any(value is call for value in scope.returned):
        return function.returns
    return None


def _declared_name(name: str, call: ast.Call, scope: Scope) -> ast.expr | None:
    """The type of `name`, bound to the call: its own annotation (`x: T` alone), or the
    function's return type when the function returns it, provided it is bound to nothing
    but the call and None."""
    annotation: ast.expr | None = None
    for binding in scope.bindings.get(name, ()):
        kind = type(binding)
        if kind is Annotated:
            annotation = binding.value
            continue
        if kind not in (Assignment, Unpacking) or not (
            binding.value is call or _none(binding.value)
        ):
            return None  # bound to something else too: what is returned may not be what was loaded
    if annotation is not None:
        return annotation
    function = scope.node
    if isinstance(function, FUNCTIONS) and any(
        isinstance(value, ast.Name) and value.id == name for value in scope.returned
    ):
        return function.returns
    return None


def _none(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Tuple):
        return all(_none(element) for element in value.elts)
    return isinstance(value, ast.Constant) and value.value is None


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a function body, nested blocks included, not nested functions or classes."""
    found: list[ast.stmt] = []
    todo = list(body)
    while todo:
        statement = todo.pop()
        found.append(statement)
        if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo.extend(getattr(statement, field, ()))
        if isinstance(statement, ast.ExceptHandler):
            todo.extend(statement.body)
    return found


def only_tensors(
    annotation: ast.expr | None, resolver: Tagger, scope: Scope, depth: int = 0
) -> bool:
    """Whether the annotation admits only tensors, plain values and tuples, lists, dicts of them."""
    if annotation is None or depth > 10:
        return False
    if isinstance(annotation, ast.Constant):
        if annotation.value is None:
            return True
        if isinstance(annotation.value, str):  # a string annotation
            try:
                parsed = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return False
            return only_tensors(
                parsed, resolver, scope, depth + 1
            )  # its names read as the module reads them
        return annotation.value is Ellipsis
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):  # X | None
        return only_tensors(annotation.left, resolver, scope, depth + 1) and only_tensors(
            annotation.right, resolver, scope, depth + 1
        )
    if isinstance(annotation, ast.Subscript):
        container = _name(annotation.value, resolver, scope)
        if container not in CONTAINERS:
            return False
        items = (
            annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        )
        return all(only_tensors(item, resolver, scope, depth + 1) for item in items)
    name = _name(annotation, resolver, scope)
    return name in TENSORS or name in PLAIN


def _name(node: ast.expr, resolver: Tagger, scope: Scope) -> str | None:
    qualified = resolver.qualified(node, scope)
    if qualified is not None:
        return qualified
    if (
        isinstance(node, ast.Name)
        and node.id in PLAIN | {"tuple", "list", "dict"}
        and not scope.binds(node.id)
    ):
        return node.id  # a builtin
    return None


def holds_tensor(call: ast.Call, resolver: Tagger, scope: Scope) -> bool:
    """Whether the code in view shows that the loaded file holds one tensor: the load is the data
    of a `Parameter` (which takes nothing else), or the function saves a tensor to the same path
    (`torch.save(spec, spec_filename)` beside `spec = torch.load(spec_filename)`, a cache it
    writes itself), and nothing else."""
    function = scope.node
    body = function.body if isinstance(function, (ast.Module, *FUNCTIONS)) else []
    path = ast.dump(call.args[0]) if call.args else None
    saved: list[bool] = []  # of each save to the same path, whether it saves a tensor
    for statement in _statements(body):
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            qualified = resolver.qualified(node.func, scope)
            if qualified in PARAMETERS and node.args[0] is call:
                return True
            if (
                qualified == "torch.save"
                and path is not None
                and len(node.args) > 1
                and ast.dump(node.args[1]) == path
            ):
                saved.append(is_tensor(resolver.tag(node.args[0], scope)))
    return bool(saved) and all(saved)
