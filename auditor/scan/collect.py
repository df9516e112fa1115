"""The one walk of a module: its scopes and their bindings, and the sites the checker reads.

Nothing is typed or resolved here: each binding is noted in the scope it belongs to, to be
read by the resolver when its name is first looked up.
"""

from __future__ import annotations

import ast
from collections.abc import Container
from typing import Protocol

from auditor.scan.bindings import (
    Annotated,
    Assignment,
    Binding,
    Definition,
    ExceptAs,
    ForTarget,
    Global,
    Import,
    MatchCapture,
    Parameter,
    Unpacking,
)
from auditor.scan.scopes import Conditions, Scope, key_of, owner_for
from auditor.scan.tags import LOCAL
from auditor.scan.walk import _UNSEEN, FastVisitor

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

# What the checker looks at (`Resolver.sites`): the kinds of nodes it reads, in the order of a
# walk of the module, each with its scope and three facts about where it is: inside the body of
# a `try` that catches missing names (a feature probe) or in its fallback handler, inside an
# annotation, and the tests it runs under (`guards.Conditions`: an `if` around it, an `if T:
# return` before it in its block, the left side of an `and`/`or`, a conditional expression).
# An attribute chain is a site only on a name: one on a call or subscript (`f(x).clamp`) holds
# nothing of a module's, and the checker ignored it; nor is a link ending in a name no rule
# has, unless on `self` (`self.op` may be an alias).
# The four facts are one tuple (`Where`), shared by the sites of one stretch of code: the walk
# makes a new one only where one of them changes.
CALL, NAME, ATTRIBUTE, FLOOR_DIVIDE, FLOOR_ASSIGN, ASSIGN, CLASS, DECORATOR, IMPORT = range(9)
Where = tuple[
    Scope, bool, bool, Conditions
]  # scope, guarded, in an annotation, the tests it runs under
Site = tuple[int, ast.AST, Where]
EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
ALIASES = (ast.Name, ast.Attribute)  # the values that can make an alias of a qualified name
LOOKUPS = frozenset(
    {"getattr", "__import__", "import_module"}
)  # calls that can too: `getattr(torch, "load")`


def is_lookup(call: ast.Call) -> bool:
    func = call.func
    return (func.__class__ is ast.Name and func.id in LOOKUPS) or (
        func.__class__ is ast.Attribute and func.attr in LOOKUPS
    )


class Tables(Protocol):
    """What the walk fills in for the resolver (`names.Resolver`), which reads it afterwards."""

    scopes: dict[ast.AST, Scope]
    referenced: set[str]
    importable: set[str]
    items_stored: set[str]
    stars: bool
    shadowed: set[int]
    sites: list[Site]
    call_sites: list[Site]
    relative: dict[str, str]
    arms: dict[int, Conditions]


class Collector(FastVisitor):
    def __init__(self, resolver: Tables, attributes: Container[str] | None = None):
        """`attributes`: the last names of the chains the checker reads (`RuleIndex.attributes`);
        a link ending in another name is a site only on `self` (None: every link is one)."""
        self.resolver = resolver
        self.attributes = attributes
        self.scope: Scope | None = None
        self.fallback = False  # inside an except handler: imports there do not replace the try's
        self.guarded = False  # inside a try catching AttributeError/ImportError, or its handler
        self.in_annotation = False
        self.shadowing: frozenset[str] = frozenset()  # names of the module-level handlers we are in
        self.subject: ast.expr | None = None  # of the innermost `match`
        self.pattern: ast.pattern | None = None  # the whole pattern of the case being walked
        self.sites = resolver.sites
        self.conditions: Conditions = ()
        self.where: Where  # set with the module's scope (`_enter`)

    def _moved(self) -> None:
        """One of the four facts of `where` changed: the sites from here on have the new ones."""
        assert self.scope is not None
        self.where = (self.scope, self.guarded, self.in_annotation, self.conditions)

    def _site(self, kind: int, node: ast.AST) -> None:
        self.sites.append((kind, node, self.where))

    def _under(self, test: ast.expr, wanted: bool, nodes: list[ast.stmt] | list[ast.expr]) -> None:
        """Visit `nodes`, which run only where `test` is `wanted`."""
        assert self.scope is not None
        outer = self.conditions
        self.conditions = (*outer, (test, wanted, self.scope))
        self._moved()
        if nodes and isinstance(nodes[0], ast.stmt):
            self._block(nodes)
        else:
            for node in nodes:
                self.visit(node)
        self.conditions = outer
        self._moved()

    def _block(self, statements: list[ast.stmt]) -> None:
        """A block's statements; after `if T: ... return`, the rest runs only where T fails."""
        assert self.scope is not None
        outer = self.conditions
        dispatch = self._dispatch
        for statement in statements:
            handler = dispatch.get(
                statement.__class__, _UNSEEN
            )  # `visit`, dispatched here: a call less per statement
            if handler is _UNSEEN:
                handler = self._handler(statement.__class__)
            if handler is not None:
                handler(self, statement)
            if statement.__class__ is ast.If:
                body_exits = statement.body[-1].__class__ in EXITS
                else_exits = bool(statement.orelse) and statement.orelse[-1].__class__ in EXITS
                if body_exits != else_exits:
                    self.conditions = (*self.conditions, (statement.test, else_exits, self.scope))
                    self._moved()
        if self.conditions is not outer:
            self.conditions = outer
            self._moved()

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        self._under(node.test, True, node.body)
        if node.orelse:
            self._under(node.test, False, node.orelse)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.visit(node.test)
        self._under(node.test, True, [node.body])
        self._under(node.test, False, [node.orelse])

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        """`a and f()`: f() runs only where a is true; `a or f()` where it is false."""
        assert self.scope is not None
        outer = self.conditions
        wanted = node.op.__class__ is ast.And
        for value in node.values:
            self.visit(value)
            self.conditions = (*self.conditions, (value, wanted, self.scope))
            self._moved()
        self.conditions = outer
        self._moved()

    def _annotation(self, node: ast.expr | None) -> None:
        if node is not None:
            outer, self.in_annotation = self.in_annotation, True
            self._moved()
            self.visit(node)
            self.in_annotation = outer
            self._moved()

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
        outer_where = self.where if outer is not None else None  # none yet for the module
        self._moved()
        if params is not None:
            for arg in [*params.posonlyargs, *params.args, *params.kwonlyargs]:
                self._later(ast.Name(arg.arg), arg.annotation, Parameter)
            for extra in (params.vararg, params.kwarg):
                if extra is not None:
                    scope.add(extra.arg, Definition((node, extra, None)))
                    scope.tags[extra.arg] = LOCAL
        if isinstance(node, COMPREHENSIONS):
            for generator in node.generators:
                self._later(generator.target, generator.iter, ForTarget)
                self.visit(generator.iter)
                for condition in generator.ifs:
                    self.visit(condition)
            body: list[ast.AST] = (
                [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            )
        elif isinstance(node, ast.Lambda):
            body = [node.body]
        else:
            self._block(node.body)  # type: ignore[attr-defined]
            body = []
        for part in body:
            self.visit(part)
        self.scope = outer
        if outer_where is not None:
            self.where = outer_where

    def _later(self, target: ast.expr, value: ast.expr | None, kind: type[Binding]) -> None:
        """Note a binding of `target` (each element of a tuple target) in the scope it belongs to."""
        scope = self.scope
        assert scope is not None
        shape = target.__class__
        if shape is ast.Tuple or shape is ast.List:
            if kind is ForTarget:
                for element, iterable in _for_elements(target, value):  # type: ignore[arg-type]
                    self._later(element, iterable, ForTarget)
                return
            elements, kind = target.elts, (Unpacking if kind is Assignment else kind)  # type: ignore[attr-defined]
        else:
            elements = (target,)
        for element in elements:
            key = (
                element.id if element.__class__ is ast.Name else key_of(element)
            )  # a name, most often
            if key is None:
                continue
            if kind is Assignment and (
                value.__class__ in ALIASES or (value.__class__ is ast.Call and is_lookup(value))
            ):
                self.resolver.importable.add(key)  # may be an alias: op = torch.floor_divide
                self.resolver.arms[id(element)] = self.conditions  # the branches it is bound on
            owner = owner_for(key, scope) if scope.lives_in or key[:5] == "self." else scope
            bindings = owner.bindings.get(key)
            if bindings is None:
                owner.bindings[key] = [kind((scope.node, element, value))]
            else:
                bindings.append(kind((scope.node, element, value)))
            owner.unread.add(key)

    def _local(self, node: ast.AST, name: str) -> None:
        assert self.scope is not None
        self.scope.qualified.pop(name, None)
        self.scope.tags[name] = LOCAL
        self.scope.add(name, Definition((node, node, None)))

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
        self._local(node, node.name)
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
        self._local(node, node.name)
        self.scope.classes[node.name] = list(node.bases)
        self._enter(node, is_class=True)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        """`global x`: x's bindings here are the module's; `nonlocal x`: the enclosing function's
        that binds it (or the nearest, when its binding comes later in the text)."""
        scope = self.scope
        assert scope is not None
        for name in node.names:
            outer = scope.parent
            if isinstance(node, ast.Global):
                while outer is not None and outer.parent is not None:
                    outer = outer.parent
            else:
                while outer is not None and (
                    outer.is_class or (outer.parent is not None and not outer.binds(name))
                ):
                    if outer.parent is None or outer.parent.parent is None:
                        break  # the outermost function
                    outer = outer.parent
            if outer is not None and outer is not scope:
                scope.lives_in[name] = outer
                scope.bindings.setdefault(name, []).append(Global((scope.node, node, None)))

    visit_Nonlocal = visit_Global

    def visit_Try(self, node: ast.Try) -> None:
        """`try: from torch.cuda.amp import autocast` / `except ImportError: from torch import
        autocast`: the name is what the try imports wherever that exists (the old releases).

        A bare reference in a try that catches AttributeError or ImportError is a feature probe
        (`_ = torch.cpu.amp.autocast`) written for exactly the version change: not a use. Nor
        is one in the handler of such a try (`except AttributeError: W = np.ComplexWarning`),
        which runs only where the try's spelling is missing."""
        guarded = any(_catches_missing_names(handler.type) for handler in node.handlers)
        outer_guard, self.guarded = self.guarded, self.guarded or guarded
        self._moved()
        self._block(node.body)
        self.guarded = outer_guard
        for handler in node.handlers:
            outer, self.fallback = self.fallback, True
            self.guarded = outer_guard or (
                handler.type is not None and _catches_missing_names(handler.type)
            )
            self._moved()
            self.visit(handler)
            self.fallback, self.guarded = outer, outer_guard
        self._moved()
        self._block(node.orelse)
        self._block(node.finalbody)

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        """`except E as x`: in a function x is local throughout (Python decides so when it
        compiles it); in a module or class body x is the exception only inside the handler,
        which deletes it: the import of the same name still holds before and after."""
        assert self.scope is not None
        if node.name is None:
            self.generic_visit(node)
        elif self.scope.parent is not None and not self.scope.is_class:
            self._later(ast.Name(node.name), node.type, ExceptAs)
            self.generic_visit(node)
        else:
            outer = self.shadowing
            self.shadowing = outer | {node.name}
            self.generic_visit(node)
            self.shadowing = outer

    def _import(self, node: ast.AST, name: str, qualified: str) -> None:
        assert self.scope is not None
        if self.fallback and name in self.scope.qualified:
            return
        self.resolver.importable.add(name)
        self.scope.qualified[name] = qualified
        self.scope.tags.pop(name, None)
        self.scope.add(name, Import((node, node, None)))

    def visit_Import(self, node: ast.Import) -> None:
        self._site(IMPORT, node)
        for alias in node.names:
            if alias.asname:
                self._import(node, alias.asname, alias.name)
            else:
                top = alias.name.split(".")[0]
                self._import(node, top, top)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        assert self.scope is not None
        self._site(IMPORT, node)
        if node.level or not node.module:
            for alias in node.names:
                self._local(node, alias.asname or alias.name)
                if (
                    self.scope.parent is None and alias.name != "*"
                ):  # for the project's index (`feeds`)
                    module = "." * node.level + (f"{node.module}." if node.module else "")
                    self.resolver.relative[alias.asname or alias.name] = module + alias.name
            return
        for alias in node.names:
            if alias.name == "*":
                self.scope.stars.append(node.module)
                self.resolver.stars = True
            else:
                self._import(node, alias.asname or alias.name, f"{node.module}.{alias.name}")

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
            target = ast.Attribute(
                value=ast.Name("self", ast.Load()), attr=node.args[0].value, ctx=ast.Store()
            )
            self._later(target, node.args[1], Assignment)
        where = self.where
        site = (CALL, node, where)
        self.sites.append(site)
        self.resolver.call_sites.append(site)
        # The callee `f` or `self.f` is read as any name or attribute is, but called, not
        # passed around (`referenced`); and it may be a project function (`Scope.calls`).
        if func.__class__ is ast.Name:
            self.scope.calls.append(node)
            self.sites.append((NAME, func, where))
            self.scope.reads.add(func.id)
            if self.shadowing and func.id in self.shadowing:
                self.resolver.shadowed.add(id(func))
        elif (
            func.__class__ is ast.Attribute
            and func.value.__class__ is ast.Name
            and func.value.id == "self"
        ):
            self.scope.calls.append(node)
            self.sites.append((ATTRIBUTE, func, where))
            self.visit_Name(func.value)
        elif func.__class__ is ast.Attribute:
            self.visit_Attribute(func)
        else:
            self.visit(func)
        self.visit_each(node.args)
        for keyword in node.keywords:
            self.visit(keyword.value)

    def visit_Name(self, node: ast.Name) -> None:
        if node.ctx.__class__ is ast.Load:
            self.sites.append((NAME, node, self.where))
            self.scope.reads.add(node.id)  # type: ignore[union-attr]
            if not self.in_annotation:
                self.resolver.referenced.add(node.id)
            if self.shadowing and node.id in self.shadowing:
                self.resolver.shadowed.add(id(node))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """A chain `a.b.c`, link by link, then its root. A chain on a call or subscript
        (`f(x).clamp`) holds nothing of a module's: its links are no sites; the call is one."""
        root = node.value
        while root.__class__ is ast.Attribute:
            root = root.value
        if root.__class__ is ast.Name:
            link: ast.expr = node
            where, attributes = self.where, self.attributes
            while link.__class__ is ast.Attribute:
                if link.ctx.__class__ is ast.Load:
                    on_self = root.id == "self" and link.value is root
                    if attributes is None or on_self or link.attr in attributes:
                        self.sites.append((ATTRIBUTE, link, where))
                    if on_self and not self.in_annotation:
                        self.resolver.referenced.add(link.attr)
                link = link.value
            self.visit_Name(root)
        else:
            self.visit(root)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if node.ctx.__class__ is not ast.Load:
            key = key_of(node.value)
            if key is not None:
                self.resolver.items_stored.add(
                    key
                )  # `batch["t"] = v`: its items are not what it was built with
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
        value = node.value
        site = value.__class__ in ALIASES or (
            value.__class__ is ast.Call and is_lookup(value)
        )  # an alias (`op = torch.floor_divide`) or `x.data = v`: see `Checker._assign`
        for target in node.targets:
            self._later(target, value, Assignment)
            site = site or target.__class__ is ast.Attribute
        if site:
            self._site(ASSIGN, node)
        for target in node.targets:
            if target.__class__ is not ast.Name:  # a name stored is no site
                self.visit(target)
        self.visit(value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._later(node.target, node.value, Assignment)
        else:
            self._later(node.target, node.annotation, Annotated)
        self._annotation(node.annotation)
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._later(node.target, node.value, Assignment)
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._later(node.target, node.iter, ForTarget)
        self.visit(node.target)
        self.visit(node.iter)
        self._block(node.body)
        self._block(node.orelse)

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        self._block(node.body)
        self._block(node.orelse)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item)
        self._block(node.body)

    visit_AsyncWith = visit_With

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self._later(node.optional_vars, None, Assignment)
        self.generic_visit(node)

    def visit_Match(self, node: ast.Match) -> None:
        self.visit(node.subject)
        outer, self.subject = self.subject, node.subject
        outer_pattern = self.pattern
        for case in node.cases:
            self.pattern = case.pattern
            self.visit(case)
        self.subject, self.pattern = outer, outer_pattern

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        """`case x:` and `case <pattern> as x` capture the subject (or the part matched)."""
        if node.name is not None:
            whole = node is self.pattern and node.pattern is None
            self._later(ast.Name(node.name), self.subject if whole else None, MatchCapture)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name is not None:
            self._later(ast.Name(node.name), None, MatchCapture)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest is not None:
            self._later(ast.Name(node.rest), None, MatchCapture)
        self.generic_visit(node)


def _catches_missing_names(handler: ast.expr | None) -> bool:
    names = handler.elts if isinstance(handler, ast.Tuple) else [handler]
    return any(
        n is None
        or (
            isinstance(n, ast.Name)
            and n.id in ("AttributeError", "ImportError", "ModuleNotFoundError")
        )
        for n in names
    )


def _for_elements(
    target: ast.Tuple | ast.List, iterable: ast.expr | None
) -> list[tuple[ast.expr, ast.expr | None]]:
    """Each element of a tuple loop target with what it iterates: through `enumerate(x)` (the
    count: nothing known) and `zip(a, b)` element by element, nested targets included
    (`for i, (a, b) in enumerate(zip(xs, ys))`); any other iterable gives each element all of
    it, and a nested target under it is not followed."""
    call = (
        iterable if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) else None
    )
    spread = call is not None and (
        any(isinstance(a, ast.Starred) for a in call.args) or bool(call.keywords)
    )
    pairs: list[tuple[ast.expr, ast.expr | None]]
    if (
        call is not None
        and not spread
        and call.func.id == "enumerate"  # type: ignore[attr-defined]
        and len(call.args) == 1
        and len(target.elts) == 2
    ):
        pairs = [(target.elts[0], None), (target.elts[1], call.args[0])]
    elif (
        call is not None
        and not spread
        and call.func.id == "zip"  # type: ignore[attr-defined]
        and len(call.args) == len(target.elts)
    ):
        pairs = list(zip(target.elts, call.args))
    else:
        return [(e, iterable) for e in target.elts if not isinstance(e, (ast.Tuple, ast.List))]
    found: list[tuple[ast.expr, ast.expr | None]] = []
    for element, value in pairs:
        if isinstance(element, (ast.Tuple, ast.List)):
            found += _for_elements(element, value)
        else:
            found.append((element, value))
    return found
