"""Where a release's own code says that something is deprecated or removed.

Four shapes: `warnings.warn` with a deprecation category or message, `@deprecated(...)`
decorators (also `X = deprecated(...)(f)`; not on a `typing.overload`, which never runs), stubs that only raise "... removed ...", and tables of
removed names that a module `__getattr__` reads (numpy's `__expired_attributes__`, torch's
`_deprecated_attrs`). Each site is attributed to the public symbols it belongs to: a private
helper's warning belongs to its public callers, with the guard around the call.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from auditor.astnames import dotted_name
from auditor.harvest.model import Site, Symbol
from auditor.harvest.surface import is_private
from auditor.harvest.wheel import Source

CATEGORIES = ("DeprecationWarning", "FutureWarning", "PendingDeprecationWarning")
DEPRECATION_WORDS = re.compile(
    r"deprecat|will be removed|has been removed|was removed|no longer supported", re.IGNORECASE
)
REMOVED_WORDS = re.compile(r"\bremoved\b", re.IGNORECASE)
REMOVED_TABLES = ("__expired_attributes__", "__former_attrs__", "__expired_functions__")
_MESSAGE_WIDTH = 300
_CALLER_DEPTH = 4
_OPAQUE = "?"  # stands in the guard list for a condition not on the arguments


@dataclass(frozen=True, slots=True)
class _Raw:
    """A site before attribution: its owner is the definition it sits in."""

    owner: str  # torch.nn.functional._get_softmax_dim, torch.Tensor.resize's origin, a module
    site: Site


@dataclass(frozen=True, slots=True)
class _Call:
    caller: str
    callee: str  # the called definition's qualified name, as far as the imports tell
    guard: str | None
    file: str
    line: int
    args: tuple[str, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()
    conditional: bool = False


def message_text(node: ast.expr | None, local: dict[str, ast.expr] | None = None) -> str:
    """A message's text: constants kept, formatted parts as `{...}`, concatenations joined, a
    name read from its assignment in `local` (the function's, then the module's strings), also
    inside an f-string or a concatenation."""
    if node is None:
        return ""
    text = " ".join(_text(node, local or {}).split())
    return text if len(text) <= _MESSAGE_WIDTH else text[: _MESSAGE_WIDTH - 3] + "..."


def _text(node: ast.expr, local: dict[str, ast.expr]) -> str:
    if isinstance(node, ast.Name) and node.id in local:
        return _text(local[node.id], _without(local, node.id))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in local
    ):
        return _text(local[node.func.value.id], _without(local, node.func.value.id))
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(v.value)
            if isinstance(v, ast.Constant)
            else _text(v.value, local)
            if _is_local(v, local)
            else "{" + ast.unparse(v.value) + "}"
            for v in node.values
            if isinstance(v, (ast.Constant, ast.FormattedValue))
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _text(node.left, local) + _text(node.right, local)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        return _text(node.func.value, local)
    return "{" + ast.unparse(node) + "}"


def _without(local: dict[str, ast.expr], name: str) -> dict[str, ast.expr]:
    """`local` less `name`: a string built from itself (`MSG = MSG + "..."`) is read once."""
    return {k: v for k, v in local.items() if k != name}


def _is_local(value: ast.FormattedValue, local: dict[str, ast.expr]) -> bool:
    return (
        isinstance(value.value, ast.Name)
        and value.value.id in local
        and value.conversion == -1
        and value.format_spec is None
    )


def _name(node: ast.expr) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _category(call: ast.Call, position: int, default: str) -> str:
    for kw in call.keywords:
        if kw.arg == "category":
            return _name(kw.value) or default
    if len(call.args) > position:
        return _name(call.args[position]) or default
    return default


def _is_warn(call: ast.Call) -> bool:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id == "warn"
    return (
        isinstance(f, ast.Attribute)
        and f.attr == "warn"
        and isinstance(f.value, ast.Name)
        and f.value.id in ("warnings", "_warnings")
    )


def _is_deprecated_decorator(node: ast.expr) -> ast.Call | None:
    if isinstance(node, ast.Call) and _name(node.func) == "deprecated":
        return node
    return None


def _raises_removed(body: list[ast.stmt]) -> ast.Raise | None:
    """A function that only raises with "removed" in its message: a removal stub."""
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(stmts) != 1 or not isinstance(stmts[0], ast.Raise) or stmts[0].exc is None:
        return None
    exc = stmts[0].exc
    text = message_text(exc.args[0]) if isinstance(exc, ast.Call) and exc.args else ""
    return stmts[0] if REMOVED_WORDS.search(text) else None


def _names_in(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


class _Walker:
    """One module's sites and calls, with the if-guards around them."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.raws: list[_Raw] = []
        self.calls: list[_Call] = []
        self.tables: dict[str, list[str]] = {}  # module-level dicts/sets of string keys
        self.imports: dict[str, str] = {}  # every import in the module, function-local ones too
        self.bases: list[tuple[str, str]] = []  # (base as qualified as the imports tell, subclass)
        self.params: dict[
            str, tuple[tuple[str, str | None], ...]
        ] = {}  # function -> (param, default)
        self.constants: dict[str, ast.expr] = {}  # the module's top-level string assignments
        self.local: dict[str, ast.expr] = {}  # those and the current function's string assignments

    def run(self) -> None:
        module = self.source.module
        package = module if self.source.is_package else module.rpartition(".")[0]
        for node in ast.walk(self.source.tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:
                    self.imports.setdefault(alias.asname or alias.name, f"{base}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.imports.setdefault(local, alias.name if alias.asname else local)
        for node in self.source.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                self._table(node)
        self.constants = _strings_bound(self.source.tree.body)
        self.local = self.constants
        self._body(self.source.tree.body, module, (), [], is_module=True)

    def _table(self, node: ast.Assign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        keys: list[tuple[str, ast.expr | None, int]] = []
        if isinstance(value, ast.Dict):
            keys = [
                (k.value, v, k.lineno)
                for k, v in zip(value.keys, value.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
        elif isinstance(value, (ast.Set, ast.List, ast.Tuple)):
            keys = [
                (e.value, None, e.lineno)
                for e in value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
        for target in targets:
            if not isinstance(target, ast.Name) or not keys:
                continue
            self.tables[target.id] = [k for k, _, _ in keys]
            if target.id in REMOVED_TABLES:
                owner = self._table_owner()
                for key, message, line in keys:
                    text = message_text(message) if message is not None else f"{key} was removed"
                    self._add(owner, f"{owner}.{key}", "expired", "error", text, None, line)

    def _table_owner(self) -> str:
        """numpy/_expired_attrs_2_0.py holds numpy's table: a private module's table is its parent's."""
        parts = self.source.module.split(".")
        while len(parts) > 1 and is_private(parts[-1]):
            parts.pop()
        return ".".join(parts)

    def qualify(self, node: ast.expr, owner: str, in_method: bool) -> str | None:
        """The qualified name `node` refers to: through the module's imports, `self.` to the class."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, *parts = dotted.split(".")
        if head == "self" and in_method:
            base = owner.rsplit(".", 1)[0]
        elif head in self.imports:
            base = self.imports[head]
        else:
            base = f"{self.source.module}.{head}"
        return ".".join([base, *parts])

    def _add(
        self,
        owner: str,
        symbol: str | None,
        kind: str,
        category: str,
        message: str,
        guard: str | None,
        line: int,
        conditional: bool = False,
    ) -> None:
        site = Site(
            symbol or owner,
            kind,
            category,
            message,
            guard,
            self.source.path,
            line,
            None,
            conditional,
        )
        self.raws.append(_Raw(owner if symbol is None else symbol, site))

    def _body(
        self,
        body: list[ast.stmt],
        owner: str,
        params: tuple[str, ...],
        guards: list[str],
        is_module: bool = False,
        in_class: bool = False,
    ) -> None:
        for node in body:
            self._stmt(node, owner, params, guards, is_module, in_class)

    def _stmt(
        self,
        node: ast.stmt,
        owner: str,
        params: tuple[str, ...],
        guards: list[str],
        is_module: bool,
        in_class: bool,
    ) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(node, owner, in_class)
        elif isinstance(node, ast.ClassDef):
            qualname = f"{owner}.{node.name}"
            for decorator in node.decorator_list:
                call = _is_deprecated_decorator(decorator)
                if call is not None:
                    self._decorated(call, qualname, node.lineno)
            for base in node.bases:
                target = self.qualify(base, owner, False)
                if target is not None:
                    self.bases.append((target, qualname))
            self._body(node.body, qualname, (), [], in_class=True)
        elif isinstance(node, ast.If):
            test = ast.unparse(node.test)
            relevant = bool(_names_in(node.test) & (set(params) - {"self", "cls"}))
            self._body(
                node.body,
                owner,
                params,
                guards + [test if relevant else _OPAQUE],
                is_module,
                in_class,
            )
            self._body(
                node.orelse,
                owner,
                params,
                guards + [f"not ({test})" if relevant else _OPAQUE],
                is_module,
                in_class,
            )
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            self._scan_exprs(node, owner, params, guards, exclude_body=True)
            self._body(node.body, owner, params, guards, is_module, in_class)
            self._body(getattr(node, "orelse", []), owner, params, guards, is_module, in_class)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                self._body(block, owner, params, guards, is_module, in_class)
            for handler in node.handlers:  # only when something failed
                self._body(handler.body, owner, params, guards + [_OPAQUE], is_module, in_class)
        else:
            if is_module and isinstance(node, ast.Assign):
                self._deprecated_assignment(node, owner)
            self._scan_exprs(node, owner, params, guards)

    def _deprecated_assignment(self, node: ast.Assign, module: str) -> None:
        """`X = deprecated("...", category=FutureWarning)(f)`."""
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Call):
            call = _is_deprecated_decorator(value.func)
            for target in node.targets:
                if call is not None and isinstance(target, ast.Name):
                    self._decorated(call, f"{module}.{target.id}", node.lineno)

    def _function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str, in_class: bool
    ) -> None:
        qualname = f"{owner}.{node.name}"
        if in_class and node.name in ("__init__", "__new__", "__call__"):
            qualname = owner  # warning on construction or call belongs to the class
        if any(_name(d) == "overload" for d in node.decorator_list):
            # A typing overload never runs: its `@deprecated` is for type checkers only (torch
            # 2.12's flex_attention marks the `return_lse: Literal[True]` overload so). What warns
            # at runtime is the implementation's body, walked with the implementation.
            return
        for decorator in node.decorator_list:
            call = _is_deprecated_decorator(decorator)
            if call is not None:
                self._decorated(call, qualname, node.lineno)
        stub = _raises_removed(node.body)
        if stub is not None:
            exc = stub.exc
            message = message_text(exc.args[0]) if isinstance(exc, ast.Call) and exc.args else ""
            self._add(qualname, None, "stub", "error", message, None, node.lineno)
            return
        a = node.args
        params = tuple(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
        params += tuple(p.arg for p in (a.vararg, a.kwarg) if p is not None)
        positional = [*a.posonlyargs, *a.args]
        defaults = [None] * (len(positional) - len(a.defaults)) + [
            ast.unparse(d) for d in a.defaults
        ]
        signature = [(p.arg, d) for p, d in zip(positional, defaults, strict=True)]
        signature += [
            (p.arg, ast.unparse(d) if d is not None else None)
            for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
        ]
        if in_class and signature and signature[0][0] in ("self", "cls"):
            signature = signature[1:]
        self.params[qualname] = tuple(signature)
        outer_local = self.local
        self.local = self.constants | _strings_bound(ast.walk(node))
        if node.name == "__getattr__" and not in_class:
            self._getattr_hook(node, owner)
        else:
            self._body(node.body, qualname, params, [])
        self.local = outer_local

    def _decorated(self, call: ast.Call, qualname: str, line: int) -> None:
        message = message_text(call.args[0], self.local) if call.args else ""
        category = _category(call, 99, "DeprecationWarning")
        if category == "None":
            category = "DeprecationWarning"
        self._add(qualname, None, "decorator", category, message, None, line)

    def _getattr_hook(self, node: ast.FunctionDef | ast.AsyncFunctionDef, module: str) -> None:
        """A module `__getattr__` that warns: each warning is for the names its `if` tests compare
        the attribute with (`name == "x"`, `name in {...}`, `name in _deprecated_attrs`), or, with
        no such test, for the keys of the tables the hook reads (`_deprecated_attrs.get(name)`)."""
        tables = [
            n.id
            for n in ast.walk(node)
            if isinstance(n, ast.Name) and n.id in self.tables and n.id not in REMOVED_TABLES
        ]
        fallback = [k for t in dict.fromkeys(tables) for k in self.tables[t]]
        self._hook_body(node.body, module, [], fallback)

    def _hook_body(
        self, body: list[ast.stmt], module: str, tests: list[ast.expr], fallback: list[str]
    ) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                self._hook_body(stmt.body, module, tests + [stmt.test], fallback)
                self._hook_body(stmt.orelse, module, tests, fallback)
                continue
            if isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
                blocks = [stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
                blocks += [h.body for h in getattr(stmt, "handlers", [])]
                for block in blocks:
                    self._hook_body(block, module, tests, fallback)
                continue
            for call in _calls(stmt):
                if not (_is_warn(call) and self._is_deprecation(call)):
                    continue
                names = [n for test in tests for n in self._compared(test)] or fallback
                message = message_text(call.args[0] if call.args else None, self.local)
                category = _category(call, 1, "UserWarning")
                for name in dict.fromkeys(names):
                    if not name.startswith("_"):
                        self._add(
                            module,
                            f"{module}.{name}",
                            "getattr",
                            category,
                            message,
                            None,
                            call.lineno,
                        )

    def _compared(self, test: ast.expr) -> list[str]:
        names: list[str] = []
        for n in ast.walk(test):
            if isinstance(n, ast.Compare) and len(n.comparators) == 1:
                right = n.comparators[0]
                if isinstance(right, ast.Constant) and isinstance(right.value, str):
                    names.append(right.value)
                elif isinstance(right, (ast.Set, ast.List, ast.Tuple)):
                    names += [
                        e.value
                        for e in right.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    ]
                elif isinstance(right, ast.Name) and right.id in self.tables:
                    names += self.tables[right.id]
        return names

    def _is_deprecation(self, call: ast.Call) -> bool:
        category = _category(call, 1, "UserWarning")
        message = message_text(call.args[0] if call.args else None, self.local)
        return category in CATEGORIES or bool(DEPRECATION_WORDS.search(message))

    def _scan_exprs(
        self,
        node: ast.stmt,
        owner: str,
        params: tuple[str, ...],
        guards: list[str],
        exclude_body: bool = False,
    ) -> None:
        roots: list[ast.AST] = [node]
        if exclude_body:
            roots = [
                getattr(node, f)
                for f in ("test", "iter", "target")
                if getattr(node, f, None) is not None
            ]
            roots += [item for item in getattr(node, "items", [])]
        said = [g for g in guards if g != _OPAQUE]
        guard = " and ".join(f"({g})" if len(said) > 1 else g for g in said) or None
        conditional = _OPAQUE in guards
        for root in roots:
            for call in _calls(root):
                if _is_warn(call):
                    if self._is_deprecation(call):
                        message = message_text(call.args[0] if call.args else None, self.local)
                        self._add(
                            owner,
                            None,
                            "warning",
                            _category(call, 1, "UserWarning"),
                            message,
                            guard,
                            call.lineno,
                            conditional,
                        )
                else:
                    callee = self.qualify(call.func, owner, True)
                    if callee is not None:
                        self.calls.append(
                            _Call(
                                owner,
                                callee,
                                guard,
                                self.source.path,
                                call.lineno,
                                tuple(ast.unparse(a) for a in call.args),
                                tuple(
                                    (k.arg, ast.unparse(k.value)) for k in call.keywords if k.arg
                                ),
                                conditional,
                            )
                        )


def _strings_bound(nodes: Iterable[ast.AST]) -> dict[str, ast.expr]:
    """The names assigned a string, an f-string or a concatenation among `nodes`."""
    return {
        t.id: n.value
        for n in nodes
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and isinstance(n.value, (ast.Constant, ast.JoinedStr, ast.BinOp))
    }


def _calls(root: ast.AST) -> Iterator[ast.Call]:
    """Calls in `root`, not descending into nested functions or classes (they are walked apart)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
            ):
                stack.append(child)


def find_sites(sources: list[Source], symbols: list[Symbol]) -> tuple[list[Site], int]:
    """Every deprecation site attributed to public symbols, and how many sites stayed private."""
    raws: list[_Raw] = []
    calls: list[_Call] = []
    subclasses: dict[str, list[str]] = {}
    signatures: dict[str, tuple[tuple[str, str | None], ...]] = {}
    for source in sources:
        if source.is_stub:
            continue
        walker = _Walker(source)
        walker.run()
        raws += walker.raws
        calls += walker.calls
        signatures.update(walker.params)
        for base, subclass in walker.bases:
            subclasses.setdefault(base, []).append(subclass)
    public: dict[str, list[str]] = {}
    for s in symbols:
        public.setdefault(s.origin, []).append(s.name)
    for names in public.values():
        names.sort(key=lambda n: (n.count("."), len(n), n))
    callers: dict[str, list[_Call]] = {}
    for c in calls:
        callers.setdefault(c.callee, []).append(c)

    sites: dict[tuple[str, str, str | None, str], Site] = {}
    private = 0
    for raw in raws:
        found = list(_attribute(raw.owner, raw.site, public, callers, subclasses, signatures, 0))
        if not found:
            private += 1
        for site in found:
            sites.setdefault((site.symbol, site.kind, site.guard, site.category), site)
    return sorted(
        sites.values(), key=lambda s: (s.symbol, s.kind, s.guard or "", s.file, s.line)
    ), private


def _attribute(
    owner: str,
    site: Site,
    public: dict[str, list[str]],
    callers: dict[str, list[_Call]],
    subclasses: dict[str, list[str]],
    signatures: dict[str, tuple[tuple[str, str | None], ...]],
    depth: int,
) -> Iterator[Site]:
    if site.kind in ("getattr", "expired"):
        yield site  # already named by the table: torch.has_cuda, numpy.float
        return
    names = public.get(owner)
    if names:
        yield replace(site, symbol=names[0])
        return
    if site.kind != "warning" or depth >= _CALLER_DEPTH:
        return
    helper = owner.rsplit(".", 1)[-1]
    if not is_private(owner):
        return  # a public-looking name that is not on the surface: nested or unreachable
    for subclass in subclasses.get(owner, []):  # a private base class warns in its constructor
        yield from _attribute(
            subclass,
            replace(site, via=site.via or helper),
            public,
            callers,
            subclasses,
            signatures,
            depth + 1,
        )
    for call in callers.get(owner, []):
        if call.caller == owner:
            continue
        inner = translate(site.guard, signatures.get(owner, ()), call)
        if inner is False:
            continue  # this call never reaches the warning (emit_warning=False)
        parts = [g for g in (call.guard, inner) if isinstance(g, str)]
        guard = parts[0] if len(parts) == 1 else " and ".join(f"({g})" for g in parts) or None
        conditional = site.conditional or call.conditional
        if inner is None and site.guard is not None:
            conditional = True  # the helper's condition cannot be said in the caller's terms
        moved = replace(
            site,
            guard=guard,
            file=call.file,
            line=call.line,
            via=site.via or helper,
            conditional=conditional,
        )
        yield from _attribute(
            call.caller, moved, public, callers, subclasses, signatures, depth + 1
        )


def translate(
    guard: str | None, signature: tuple[tuple[str, str | None], ...], call: _Call
) -> str | bool | None:
    """The helper's guard in the caller's terms: its parameters replaced by the call's arguments
    (or their defaults). True: always holds; False: never; None: cannot be said."""
    if guard is None:
        return True
    bound: dict[str, str] = {}
    for (name, _), arg in zip(signature, call.args, strict=False):
        if arg.startswith("*"):
            break  # `helper(*args)`: which parameter gets what is not known from here on
        bound[name] = arg
    bound.update((k, v) for k, v in call.keywords if any(k == n for n, _ in signature))
    spread = any(arg.startswith("*") for arg in call.args)
    for name, default in signature:
        if name not in bound and default is not None and not spread:
            bound[name] = default  # with *args or **kwargs in the call, a default may not hold
    try:
        tree = ast.parse(guard, mode="eval")
    except SyntaxError:
        return None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    helper_params = {n for n, _ in signature}
    if not names & helper_params or not (names & helper_params) <= set(bound):
        return None

    class _Swap(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if node.id in bound:
                return ast.parse(bound[node.id], mode="eval").body
            return node

    text = ast.unparse(_Swap().visit(tree))
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return bool(value)
