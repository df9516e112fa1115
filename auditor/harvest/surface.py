"""The public surface of a release: what a user can reach, with parameters and defaults.

Read from the parsed sources only. A name is public when its path has no underscore part, or
when a public module re-exports it (`from ._tensor import Tensor`, `__all__`, star imports from
private modules, the C functions torch copies into its namespace from its stubs).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from auditor.astnames import dotted_name
from auditor.harvest.model import UNKNOWN_DEFAULT, Param, Symbol
from auditor.harvest.wheel import Source

# Namespaces filled at import time by a loop over a C module, which no import statement shows.
VIRTUAL_STARS: dict[str, tuple[str, ...]] = {
    "torch": ("torch._C._VariableFunctions",),
}
_MAX_DEPTH = 12
# Classes whose `__getattr__` never finds a method: nn.Module's looks in its parameters, buffers
# and submodules only.
STATIC_GETATTR = frozenset({"torch.nn.modules.module.Module"})
_DEFAULT_WIDTH = 80


def is_private(dotted: str) -> bool:
    return any(
        part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
        for part in dotted.split(".")
    )


def params_of(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> tuple[Param, ...]:
    a = node.args
    positional = [(arg, "positional-only") for arg in a.posonlyargs] + [
        (arg, "positional") for arg in a.args
    ]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(
        a.defaults
    )
    params = [
        Param(arg.arg, kind, _default(d))
        for (arg, kind), d in zip(positional, defaults, strict=True)
    ]
    if method and params and not _is_static(node):
        params = params[1:]
    if a.vararg:
        params.append(Param(a.vararg.arg, "var-positional", None))
    params += [
        Param(arg.arg, "keyword-only", _default(d))
        for arg, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
    ]
    if a.kwarg:
        params.append(Param(a.kwarg.arg, "var-keyword", None))
    return tuple(params)


def _input_for_self(params: tuple[Param, ...]) -> tuple[Param, ...]:
    """A stub's module-level C function whose first parameter is `self` (`def argmax(self: Tensor,
    ...)`): Python calls name it `input`, as the signatures compiled into the library say."""
    if params and params[0].name == "self":
        return (replace(params[0], name="input"), *params[1:])
    return params


def _default(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return UNKNOWN_DEFAULT
    text = ast.unparse(node)
    return text if len(text) <= _DEFAULT_WIDTH else text[: _DEFAULT_WIDTH - 3] + "..."


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(dotted_name(d) in ("overload", "typing.overload") for d in node.decorator_list)


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def merge_overloads(signatures: Iterable[tuple[Param, ...]]) -> tuple[Param, ...]:
    """One parameter list for all overloads: every name any overload accepts, first seen first."""
    seen: dict[str, Param] = {}
    for signature in signatures:
        for p in signature:
            seen.setdefault(p.name, p)
    return tuple(seen.values())


@dataclass
class _Namespace:
    """The top-level bindings of one module (its .py, then its .pyi filling in what is missing)."""

    module: str
    path: str
    is_stub: bool
    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = field(default_factory=dict)
    classes: dict[str, list[ast.ClassDef]] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)  # alias -> dotted target
    assigns: dict[str, ast.Assign | ast.AnnAssign] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    all_names: list[str] | None = None
    # `for name in M.__all__: globals()[name] = wrap(getattr(M, name))`: (M, the list, whether
    # the loop also appends each name to `__all__`)
    loops: list[tuple[str, str, bool]] = field(default_factory=list)
    paths: dict[str, str] = field(default_factory=dict)  # name -> the file that binds it

    def binds(self, name: str) -> bool:
        return (
            name in self.defs
            or name in self.classes
            or name in self.imports
            or name in self.assigns
        )


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([target] if target else []))


def _fill(ns: _Namespace, source: Source) -> None:
    """Add `source`'s top-level bindings that `ns` does not have yet."""
    fresh = not ns.defs and not ns.classes and not ns.imports and not ns.assigns

    def bind(name: str) -> bool:
        if not fresh and ns.binds(name) and ns.paths.get(name) != source.path:
            return False
        ns.paths.setdefault(name, source.path)
        return True

    for node in _top_level(source.tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if bind(node.name):
                ns.defs.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ClassDef):
            # a stub annotates a class its module's source defines: the members are the source's
            if source.is_stub and ns.paths.get(node.name, "").endswith(".py"):
                continue
            if node.name in ns.classes or bind(node.name):
                ns.classes.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(source.module, source.is_package, node.level, node.module)
            for alias in node.names:
                if alias.name == "*":
                    ns.stars.append(base)
                elif bind(alias.asname or alias.name):
                    ns.imports[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                if bind(local):
                    ns.imports[local] = alias.name if alias.asname else local
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            _assignment(ns, node, bind)
        elif isinstance(node, ast.For):
            _loop(ns, node)


def _loop(ns: _Namespace, node: ast.For) -> None:
    """Record a loop that binds, through `globals()`, each name a list of another module holds."""
    if not (
        isinstance(node.target, ast.Name)
        and isinstance(node.iter, ast.Attribute)
        and isinstance(node.iter.value, ast.Name)
        and node.iter.value.id in ns.imports
    ):
        return
    name = node.target.id
    binds = appends = False
    for inner in ast.walk(node):
        if isinstance(inner, ast.Assign) and any(
            isinstance(t, ast.Subscript)
            and isinstance(t.value, ast.Call)
            and dotted_name(t.value.func) == "globals"
            and _is_name(t.slice, name)
            for t in inner.targets
        ):
            binds = True
        elif (
            isinstance(inner, ast.Call)
            and dotted_name(inner.func) == "__all__.append"
            and len(inner.args) == 1
            and _is_name(inner.args[0], name)
        ):
            appends = True
    if binds:
        ns.loops.append((ns.imports[node.iter.value.id], node.iter.attr, appends))


def _assignment(
    ns: _Namespace, node: ast.Assign | ast.AnnAssign | ast.AugAssign, bind: object
) -> None:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if not isinstance(target, ast.Name):
            continue
        if target.id == "__all__":
            names = _strings(node.value) if node.value is not None else []
            if isinstance(node, ast.AugAssign) or ns.all_names is None:
                ns.all_names = (ns.all_names or []) + names
            else:
                ns.all_names = names
        elif not isinstance(node, ast.AugAssign) and callable(bind) and bind(target.id):
            ns.assigns[target.id] = node


def _strings(node: ast.expr) -> list[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    if isinstance(node, ast.BinOp):
        return _strings(node.left) + _strings(node.right)
    return []


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements at module level, looking into `if`/`try` blocks (TYPE_CHECKING, optional imports)."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body)
            for handler in node.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value  # __all__.extend([...]) / __all__.append("x")
            if (
                isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == "__all__"
                and call.args
            ):
                arg = call.args[0]
                yield ast.AugAssign(
                    target=ast.Name("__all__"),
                    op=ast.Add(),
                    value=arg if call.func.attr == "extend" else ast.List([arg]),
                )
        else:
            yield node


@dataclass(frozen=True, slots=True)
class _Def:
    qualname: str
    kind: str  # function, class, attribute
    file: str
    line: int
    source: str
    params: tuple[Param, ...] = ()
    nodes: tuple[ast.ClassDef, ...] = ()
    module: str = ""
    resolved: tuple[tuple[str, str, int], ...] = ()


class Surface:
    """Name resolution over one release's sources."""

    def __init__(self, sources: Iterable[Source], package: str) -> None:
        self.package = package
        self.namespaces: dict[str, _Namespace] = {}
        ordered = sorted(sources, key=lambda s: (s.module, s.is_stub))  # .py before .pyi
        for source in ordered:
            ns = self.namespaces.get(source.module)
            if ns is None:
                ns = self.namespaces[source.module] = _Namespace(
                    source.module, source.path, source.is_stub
                )
            _fill(ns, source)
        self.stubs = tuple(sorted(s.path for s in ordered if s.is_stub))
        self._cache: dict[tuple[str, str], _Def | str | None] = {}
        self._exported: dict[str, list[str]] = {}

    # -- resolution -------------------------------------------------------------------------
    def resolve(self, module: str, name: str, depth: int = 0) -> _Def | str | None:
        """The definition `module.name` refers to, a module name (str), or None when unknown."""
        key = (module, name)
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = None  # cycles resolve to unknown
        result = self._resolve(module, name, depth)
        self._cache[key] = result
        return result

    def _resolve(self, module: str, name: str, depth: int) -> _Def | str | None:
        if depth > _MAX_DEPTH:
            return None
        ns = self.namespaces.get(module)
        if ns is None:
            return None
        path = ns.paths.get(name, ns.path)
        source = "py" if path.endswith(".py") else path
        if name in ns.classes:
            nodes = tuple(ns.classes[name])
            init = _init(nodes)
            params = params_of(init, method=True) if init is not None else ()
            return _Def(
                f"{module}.{name}",
                "class",
                path,
                nodes[0].lineno,
                source,
                params,
                nodes,
                module,
                resolved_nones(init, params) if init is not None else (),
            )
        if name in ns.defs:
            nodes_ = sorted(ns.defs[name], key=_is_overload)  # the implementation's defaults first
            params = merge_overloads(params_of(n, method=False) for n in nodes_)
            if source != "py":
                params = _input_for_self(params)
            return _Def(
                f"{module}.{name}",
                "function",
                path,
                nodes_[0].lineno,
                source,
                params,
                (),
                module,
                resolved_nones(nodes_[0], params),
            )
        if name in ns.imports:
            return self.resolve_dotted_name(ns.imports[name], depth + 1)
        if name in ns.assigns:
            node = ns.assigns[name]
            target = self._assigned_callable(module, node, depth)
            if target is not None:
                return target
            return _Def(f"{module}.{name}", "attribute", path, node.lineno, source, (), (), module)
        if f"{module}.{name}" in self.namespaces:
            return f"{module}.{name}"
        for origin, names in self.looped(module):
            if name in names:
                return self.resolve(origin, name, depth + 1)
        for star in ns.stars + list(VIRTUAL_STARS.get(module, ())):
            if name in self.exported(star):
                return self.resolve(star, name, depth + 1)
        return None

    def resolve_dotted_name(self, dotted: str, depth: int = 0) -> _Def | str | None:
        if dotted in self.namespaces:
            return dotted
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.namespaces:
                found = self.resolve(module, parts[cut], depth + 1)
                for member in parts[cut + 1 :]:
                    if isinstance(found, str):
                        found = self.resolve(found, member, depth + 1)
                    elif found is not None and found.kind == "class":
                        found = self.member(found, member)
                    else:
                        return None
                return found
        return None

    def _assigned_callable(
        self, module: str, node: ast.Assign | ast.AnnAssign, depth: int
    ) -> _Def | None:
        """`gelu = _add_docstr(torch._C._nn.gelu, ...)`, `solve = _linalg.linalg_solve`: the C function.
        What a call returns is never the function it calls: `lu = boolean_dispatch(...)` builds a new
        function, whose parameters are not `boolean_dispatch`'s."""
        if node.value is None:
            return None
        value = node.value
        # a docstring or decorator applied to the function it returns
        candidates = value.args[:1] if isinstance(value, ast.Call) else [value]
        for expr in candidates:
            dotted = dotted_name(expr)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            ns = self.namespaces[module]
            base = ns.imports.get(head, head if head in self.namespaces else None)
            if base is None:
                continue
            found = self.resolve_dotted_name(f"{base}.{rest}" if rest else base, depth + 1)
            if isinstance(found, _Def) and found.kind == "function":
                return found
        return None

    def member(self, cls: _Def, name: str) -> _Def | None:
        for node in cls.nodes:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    same = [
                        i
                        for i in node.body
                        if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)) and i.name == name
                    ]
                    ordered = sorted(same, key=_is_overload)
                    params = merge_overloads(params_of(i, method=True) for i in ordered)
                    return _Def(
                        f"{cls.qualname}.{name}",
                        "method",
                        cls.file,
                        item.lineno,
                        cls.source,
                        params,
                        (),
                        cls.module,
                        resolved_nones(ordered[0], params),
                    )
        return None

    def exported(self, module: str, seen: frozenset[str] = frozenset()) -> list[str]:
        """The names `from module import *` brings: its `__all__`, else every public name bound at
        its top level, the names it imports (not a stub's) and those its own star imports bring."""
        ns = self.namespaces.get(module)
        if ns is None or module in seen:
            return []
        if not seen and module in self._exported:
            return self._exported[module]
        looped = [
            n
            for (_, names), (_, _, appends) in zip(self.looped(module), ns.loops, strict=True)
            if appends
            for n in names
        ]
        if ns.all_names is not None:
            # torch 1.11.0's _C/_VariableFunctions.pyi lists its NamedTuple helpers in `__all__`
            return [n for n in ns.all_names if not _stub_named_tuple(ns, n)] + looped
        imported = (
            () if ns.is_stub else ns.imports
        )  # a stub's imports serve its annotations, not the module
        assigned = [n for n in ns.assigns if not _stub_named_tuple(ns, n)]
        names = dict.fromkeys(
            n for n in (*ns.defs, *ns.classes, *imported, *assigned) if not n.startswith("_")
        )
        for star in ns.stars:
            names.update(
                dict.fromkeys(
                    n for n in self.exported(star, seen | {module}) if not n.startswith("_")
                )
            )
        if not seen:
            self._exported[module] = list(names)
        return list(names)

    def looped(self, module: str) -> list[tuple[str, list[str]]]:
        """Per loop of `module` that binds names through `globals()`: the module it reads and the
        public names of the list it walks (that module's `__all__` or another list of strings)."""
        out = []
        for origin, attribute, _ in self.namespaces[module].loops:
            source = self.namespaces.get(origin)
            names: list[str] = []
            if source is not None and attribute == "__all__":
                names = source.all_names or []
            elif source is not None and attribute in source.assigns:
                value = source.assigns[attribute].value
                names = _strings(value) if value is not None else []
            out.append((origin, [n for n in names if not n.startswith("_")]))
        return out

    def public_names(self, module: str) -> list[str]:
        ns = self.namespaces[module]
        names = dict.fromkeys(ns.all_names or [])
        for name in [*ns.defs, *ns.classes, *ns.assigns]:
            if not name.startswith("_") and not _helper_of(ns, name):
                names[name] = None
        for alias, target in ns.imports.items():
            inside = target.startswith(self.package + ".")
            if (
                not alias.startswith("_")
                and inside
                and (is_private(target) or ns.path.endswith("__init__.py"))
            ):
                names[alias] = None
        for _, looped in self.looped(module):
            names.update(dict.fromkeys(looped))
        for star in ns.stars + list(VIRTUAL_STARS.get(module, ())):
            if star == self.package or star.startswith(self.package + "."):
                names.update(dict.fromkeys(n for n in self.exported(star) if not n.startswith("_")))
        return list(names)

    def members(self, cls: _Def, depth: int = 0) -> dict[str, _Def]:
        """Public methods, with those inherited from private bases (Tensor from _TensorBase)."""
        found: dict[str, _Def] = {}
        for node in cls.nodes:
            for item in node.body:
                if (
                    isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and not item.name.startswith("_")
                    and item.name not in found
                ):
                    member = self.member(cls, item.name)
                    if member is not None:
                        found[item.name] = member
        if depth < 3:
            for base in self.bases(cls):
                if is_private(base.qualname):
                    for name, member in self.members(base, depth + 1).items():
                        found.setdefault(name, member)
        return found

    def fields(self, cls: _Def, depth: int = 0) -> list[str]:
        """The public names that are not methods: class-level (`priority: int`, `training = True`)
        and those `__init__` sets on the instance (`self.scale = 1.0`), with those of private bases."""
        names: dict[str, None] = {}
        for node in cls.nodes:
            for item in node.body:
                targets = (
                    item.targets
                    if isinstance(item, ast.Assign)
                    else [item.target]
                    if isinstance(item, ast.AnnAssign)
                    else []
                )
                names.update(
                    (t.id, None)
                    for t in targets
                    if isinstance(t, ast.Name) and not t.id.startswith("_")
                )
        init = _init(cls.nodes)
        for statement in init.body if init is not None else []:
            for target, _ in _pairs_of_self(statement):
                if not target.startswith("_"):
                    names[target] = None
        if depth < 3:
            for base in self.bases(cls):
                if is_private(base.qualname):
                    names.update(dict.fromkeys(self.fields(base, depth + 1)))
        return list(names)

    def ancestors(self, cls: _Def) -> list[str]:
        """The origins of every base class the sources define, nearest first, each once."""
        out: dict[str, None] = {}
        todo = list(self.bases(cls))
        while todo and len(out) < 4 * _MAX_DEPTH:
            base = todo.pop(0)
            if base.qualname not in out and base.qualname != cls.qualname:
                out[base.qualname] = None
                todo += self.bases(base)
        return list(out)

    def dynamic(self, cls: _Def) -> str:
        """Why a member gone from `cls` may still be reached, or "": the nearest `__getattr__` of
        the class or its bases (not nn.Module's: it finds parameters, buffers and submodules,
        never a method), or a base of the package's own that no source or stub defines (a C class)."""
        todo, seen = [cls], set[str]()
        while todo and len(seen) < 4 * _MAX_DEPTH:
            current = todo.pop(0)
            if current.qualname in seen:
                continue
            seen.add(current.qualname)
            for node in current.nodes:
                for item in node.body:
                    if (
                        isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and item.name == "__getattr__"
                    ):
                        if current.qualname in STATIC_GETATTR:
                            return ""
                        return f"defines __getattr__ ({current.file}:{item.lineno})"
            unknown = next(self._unresolved_bases(current), None)
            if unknown is not None:
                return f"derives from {unknown}, which no source or stub of the release defines"
            todo += self.bases(current)
        return ""

    def _unresolved_bases(self, cls: _Def) -> Iterator[str]:
        """The bases of `cls` named in the package (`torch._C._CudaStreamBase`) that do not resolve."""
        for node in cls.nodes:
            for base in node.bases:
                dotted = dotted_name(base.value if isinstance(base, ast.Subscript) else base)
                if dotted is None:
                    continue
                head, _, rest = dotted.partition(".")
                ns = self.namespaces[cls.module]
                if head in ns.classes:
                    continue
                root = ns.imports.get(head, head)
                full = f"{root}.{rest}" if rest else root
                if full.split(".")[0] != self.package:
                    continue
                target = self.resolve_dotted_name(full)
                if not (isinstance(target, _Def) and target.kind == "class"):
                    yield full

    def bases(self, cls: _Def) -> Iterator[_Def]:
        """The direct base classes the sources define (in this module, imported, or re-exported;
        C-extension bases from the stubs); bases from elsewhere (`object`, `enum.Enum`) are skipped."""
        for node in cls.nodes:
            for base in node.bases:
                dotted = dotted_name(base.value if isinstance(base, ast.Subscript) else base)
                if dotted is None:
                    continue
                head, _, rest = dotted.partition(".")
                ns = self.namespaces[cls.module]
                if head in ns.classes:
                    target: _Def | str | None = self.resolve(cls.module, head)
                else:
                    root = ns.imports.get(head, head)
                    target = self.resolve_dotted_name(f"{root}.{rest}" if rest else root)
                if isinstance(target, _Def) and target.kind == "class":
                    yield target

    # -- the surface ----------------------------------------------------------------------
    def symbols(self) -> list[Symbol]:
        out: dict[str, Symbol] = {}
        for module in sorted(self.namespaces):
            if is_private(module) or not module.startswith(self.package):
                continue
            ns = self.namespaces[module]
            bound = tuple(
                n
                for n in (*ns.defs, *ns.classes, *ns.imports, *ns.assigns)
                if not n.startswith("_")
            )
            out[module] = Symbol(
                module,
                "module",
                ns.path,
                1,
                "py" if not ns.is_stub else ns.path,
                (),
                module,
                fields=bound,
            )
            for name in self.public_names(module):
                found = self.resolve(module, name)
                if not isinstance(found, _Def):
                    continue
                qualified = f"{module}.{name}"
                out[qualified] = _symbol(qualified, found)
                if found.kind == "class":
                    out[qualified] = replace(
                        out[qualified],
                        bases=tuple(self.ancestors(found)),
                        fields=tuple(self.fields(found)),
                        dynamic=self.dynamic(found),
                    )
                    for member_name, member in self.members(found).items():
                        out[f"{qualified}.{member_name}"] = _symbol(
                            f"{qualified}.{member_name}", member
                        )
        return sorted(out.values(), key=lambda s: s.name)


def _symbol(name: str, d: _Def) -> Symbol:
    return Symbol(name, d.kind, d.file, d.line, d.source, d.params, d.qualname, resolved=d.resolved)


def _init(nodes: tuple[ast.ClassDef, ...]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The constructor a call of the class runs: its `__init__`, else its `__new__`."""
    for constructor in ("__init__", "__new__"):
        for node in nodes:
            for item in node.body:
                if (
                    isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and item.name == constructor
                ):
                    return item
    return None


def resolved_nones(
    node: ast.FunctionDef | ast.AsyncFunctionDef, params: tuple[Param, ...]
) -> tuple[tuple[str, str, int], ...]:
    """The parameters with a default of None that the body's own top-level statements replace
    with a value, whatever the call: `if p is None: p = value`, `p = value if p is None else p`,
    `p = p or value`. An assignment further in (under another `if`) depends on more than the
    call leaving `p` out, and is not read."""
    nones = {p.name for p in params if p.default == "None"}
    found: dict[str, tuple[str, str, int]] = {}
    for statement in node.body:
        for name, value, line in _fills(statement):
            if name in nones and name not in found:
                found[name] = (name, ast.unparse(value), line)
    return tuple(found.values())


def _fills(statement: ast.stmt) -> Iterator[tuple[str, ast.expr, int]]:
    if isinstance(statement, ast.If) and _none_test(statement.test, ast.Is):
        name = statement.test.left.id  # type: ignore[attr-defined]
        for inner in statement.body:  # an `else:` runs only when the argument is given
            for target, value in _pairs(inner):
                if target == name:
                    yield name, value, inner.lineno
                    return
        return
    pairs = list(_pairs(statement))
    if len(pairs) != 1:
        return
    name, value = pairs[0]
    if (
        isinstance(value, ast.IfExp)
        and _none_test(value.test, ast.Is)
        and _is_name(value.orelse, name)
        and value.test.left.id == name  # type: ignore[attr-defined]
    ):
        yield name, value.body, statement.lineno
    elif (
        isinstance(value, ast.IfExp)
        and _none_test(value.test, ast.IsNot)
        and _is_name(value.body, name)
        and value.test.left.id == name  # type: ignore[attr-defined]
    ):
        yield name, value.orelse, statement.lineno
    elif (
        isinstance(value, ast.BoolOp)
        and isinstance(value.op, ast.Or)
        and len(value.values) == 2
        and _is_name(value.values[0], name)
    ):
        yield name, value.values[1], statement.lineno


def _pairs(statement: ast.stmt) -> Iterator[tuple[str, ast.expr]]:
    """The names an assignment binds with their values: `p = v`, `p, q = v, w`."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
        if isinstance(target, ast.Name):
            yield target.id, value
        elif (
            isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
        ):
            yield from (
                (t.id, v)
                for t, v in zip(target.elts, value.elts, strict=True)
                if isinstance(t, ast.Name)
            )
    elif (
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.value is not None
    ):
        yield statement.target.id, statement.value


def _pairs_of_self(statement: ast.stmt) -> Iterator[tuple[str, ast.expr]]:
    """The attributes a top-level statement of `__init__` sets on `self`: `self.scale = 1.0`."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and _is_name(target.value, "self"):
                yield target.attr, statement.value


def _none_test(test: ast.expr, op: type[ast.cmpop]) -> bool:
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], op)
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _helper_of(ns: _Namespace, name: str) -> bool:
    return _is_type_helper(ns.assigns.get(name), ns.paths.get(name, ns.path).endswith(".pyi"))


def _stub_named_tuple(ns: _Namespace, name: str) -> bool:
    """A stub's NamedTuple helper, which a star import does not bring even when the stub's
    `__all__` lists it (a TypeVar it still does: the shipped harvest was read that way)."""
    node = ns.assigns.get(name)
    value = node.value if node is not None else None
    return (
        ns.paths.get(name, ns.path).endswith(".pyi")
        and isinstance(value, ast.Call)
        and dotted_name(value.func) in ("NamedTuple", "typing.NamedTuple")
    )


def _is_type_helper(node: ast.Assign | ast.AnnAssign | None, stub: bool = False) -> bool:
    """A name bound for annotations only: a TypeVar, a NewType, and in a stub a NamedTuple (torch
    1.11.0's `namedtuple_Q_R = NamedTuple(...)` in torch/_C/__init__.pyi names nothing its library has)."""
    value = node.value if node is not None else None
    helpers: tuple[str, ...] = (
        "TypeVar",
        "typing.TypeVar",
        "ParamSpec",
        "NewType",
        "typing.NewType",
    )
    if stub:
        helpers += ("NamedTuple", "typing.NamedTuple")
    return isinstance(value, ast.Call) and dotted_name(value.func) in helpers
