"""Every place in a module where a compiled rule applies, as a `Finding`.

The resolver's walk of the module has listed the sites worth a look (calls, names and
attribute chains read, `//`, assignments, classes, decorators) in the order of a walk; the
checker goes down that list instead of walking the module a second time. The order matters
where one site settles another: a call's callee is not a bare reference too, and a chain
reported whole (`torch.nn.functional.dropout2d`) is not reported again in part.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property

from auditor.knowledge.conditions import (
    for_partial,
    on_receiver_dtype,
    reference_confidence,
    weakest,
)
from auditor.knowledge.entry import Condition, Confidence
from auditor.models import Finding, Shape
from auditor.scan.apis import INSTANCE_ROOTS, TYPED_CLASSES
from auditor.scan.collect import (
    ASSIGN,
    ATTRIBUTE,
    CALL,
    CLASS,
    DECORATOR,
    FLOOR_ASSIGN,
    FLOOR_DIVIDE,
    IMPORT,
    NAME,
)
from auditor.scan.conditions import argument_family, check, forwarded
from auditor.scan.dicts import Dicts
from auditor.scan.guards import Guards
from auditor.scan.ignores import NONE, Ignores
from auditor.scan.modules import ModuleTable, ProjectModules
from auditor.scan.names import Resolver
from auditor.scan.rules import OPERATOR_SYMBOLS, Rule, RuleIndex
from auditor.scan.scopes import Conditions, Scope, enclosing_class, key_of
from auditor.scan.signs import Sign, Signs
from auditor.scan.tagging import classes_of
from auditor.scan.tags import INT_TENSOR, Tag, is_tensor
from auditor.scan.usage import Usages

# Method names that numpy arrays, pandas objects, Python builtins or pathlib paths also have: on a
# receiver of unknown type they say nothing about torch, so they are reported only on known tensors.
COMMON_METHODS = frozenset(
    [
        "clip",
        "round",
        "sum",
        "mean",
        "max",
        "min",
        "all",
        "any",
        "copy",
        "fill",
        "sort",
        "reshape",
        "view",
        "astype",
        "dot",
        "item",
        "tolist",
        "flatten",
        "squeeze",
        "transpose",
        "repeat",
        "cumsum",
        "cumprod",
        "prod",
        "std",
        "var",
        "argmax",
        "argmin",
        "argsort",
        "nonzero",
        "take",
        "put",
        "diagonal",
        "trace",
        "conj",
        "real",
        "imag",
        "abs",
        "get",
        "pop",
        "update",
        "append",
        "extend",
        "index",
        "count",
        "split",
        "strip",
        "replace",
        "join",
        "format",
        "load",
        "save",
        "solve",
        "resize",
        "rename",
    ]
)


_UNKNOWN = object()  # not resolved yet
SNIPPET_LINES = (
    8  # a longer call is shown by its first and last lines and those of the keywords that decide
)


class Checker:
    def __init__(
        self,
        tree: ast.Module,
        index: RuleIndex,
        path: str,
        source: str,
        ignores: Ignores = NONE,
        modules: ProjectModules | None = None,
        fed: Mapping[tuple[str, str], Tag] | None = None,
    ):
        self.resolver = Resolver(tree, fed, modules, path, index.attributes)
        self.guards = Guards(
            index.end_versions(),
            self.resolver,
            lambda: ModuleTable.of(tree, path, source),
            modules,
            index.removed_attributes,
            index.presence,
        )
        self.conditions: Conditions = ()
        self.dicts = Dicts()
        self.usages = Usages()
        self.ignores = ignores
        self.index = index
        self.path = path
        self.source = source
        self.scope: Scope = self.resolver.scope_of(tree)
        self.findings: dict[tuple[str, str, int, int], Finding] = {}
        self.consumed: set[int] = set()  # settled by an earlier site: a callee, a class's base
        self.covered: set[int] = set()  # links of an attribute chain reported whole
        # `name = torch.x` is reported where name is called; if it never is, at the assignment
        self.deferred: list[tuple[ast.expr, str, Scope, bool, Conditions]] = []
        self.called: set[str] = set()
        self.in_annotation = False
        self.guarded = False
        # whether a class with matchers on its forward is named here: only then is a call's callee tagged
        self.forwards = any(owner.rpartition(".")[2] in source for owner in index.forwards)
        self.attributes = index.attributes
        self.uses_torch = any(
            q == "torch" or q.startswith("torch.")
            for s in self.resolver.scopes.values()
            for q in [*s.qualified.values(), *s.stars]
        )

    def run(self) -> list[Finding]:
        handlers = {
            CALL: self._call,
            NAME: self._name,
            ATTRIBUTE: self._attribute,
            FLOOR_DIVIDE: self._floor_divide,
            FLOOR_ASSIGN: self._floor_assign,
            ASSIGN: self._assign,
            CLASS: self._class,
            DECORATOR: self._decorator,
            IMPORT: self._import,
        }
        importable = self.resolver.importable
        stars = self.resolver.stars
        known = self.resolver.names_qualified
        calls, attributes, forwards = self.index.calls, self.attributes, self.forwards
        for kind, node, where in self.resolver.sites:
            # The common cases, passed over here rather than in their handlers: a local name (only
            # imported names and aliases are torch's), or a name already resolved in this scope
            # to nothing matched. (A link of a chain ending in a name nothing matched has is no
            # site at all: the walk leaves it out, `Collector.attributes`.)
            if kind == NAME:
                name = node.id  # type: ignore[attr-defined]
                if name not in importable and not stars:
                    continue
                qualified = known.get((id(where[0]), name), _UNKNOWN)
                if qualified is None or (qualified is not _UNKNOWN and qualified not in calls):
                    continue
            elif kind == CALL and not forwards:
                func = node.func  # type: ignore[attr-defined]
                if (
                    func.__class__ is ast.Attribute
                    and func.attr not in attributes
                    and (func.value.__class__ is not ast.Name or func.value.id != "self")
                ):
                    continue  # `a.b.f(x)` is qualified `....f` if at all: no matched call, nor method, is named so
            self.scope, self.guarded, self.in_annotation, self.conditions = where
            handlers[kind](node)
        for value, name, scope, guarded, version_tests in self.deferred:
            if name not in self.called:
                self.scope, self.guarded, self.in_annotation, self.conditions = (
                    scope,
                    guarded,
                    False,
                    version_tests,
                )
                self.consumed.discard(id(value))
                self._chain(value)
        return list(self.findings.values())

    # -- reporting --------------------------------------------------------------------------

    @cached_property
    def lines(self) -> list[str]:
        """The source's lines, split when the first finding needs its line's text."""
        return self.source.splitlines()

    def _report(
        self,
        rule: Rule,
        symbol: str,
        node: ast.AST,
        confidence: Confidence,
        shape: Shape,
        line: int | None = None,
        note: str | None = None,
    ) -> None:
        line = line or node.lineno  # type: ignore[attr-defined]
        if self.ignores.silences(line, rule.change.id):
            return
        change = rule.change
        if (self.conditions or change.since) and (
            self.guards.dead(self.conditions)
            or not self.guards.reaches(
                self.conditions, change.package, change.introduced, change.since
            )
        ):
            return  # runs at neither end of the transition, on one side of the change only, or fails at both (version guards)
        column = node.col_offset + 1 if line == node.lineno else 1  # type: ignore[attr-defined]
        symbol = self.index.canonical.get(
            symbol, symbol
        )  # `mypkg.tload` is reported as `torch.load`
        key = (rule.change.id, symbol, line, column)
        previous = self.findings.get(key)
        if previous is not None and weakest(previous.confidence, confidence) == confidence:
            return
        self.findings[key] = Finding(
            change=rule.change.id,
            symbol=symbol,
            path=self.path,
            line=line,
            column=column,
            cell=None,
            confidence=confidence,
            message=f"{rule.message} {note}" if note else rule.message,
            snippet=self._snippet(node, line, rule),
            shape=shape,
        )

    def _snippet(self, node: ast.AST, line: int, rule: Rule) -> str:
        """The finding's line; for a call laid out over several lines, the call (at most
        SNIPPET_LINES of it: its first line, those of the keywords its matcher names, its last)."""
        text = (
            self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        )  # split only for a finding
        end = getattr(node, "end_lineno", None)
        if (
            not isinstance(node, ast.Call)
            or end is None
            or node.lineno != line
            or end <= line
            or end > len(self.lines)
        ):
            return text.strip()
        numbers = list(range(line, end + 1))
        if len(numbers) > SNIPPET_LINES:
            when = rule.match.when
            named = {
                *when.keyword_absent,
                *when.keyword_present,
                *(k for k, _ in when.keyword_values),
                *(k for k, _ in when.keyword_values_absent),
            }
            deciding = {
                n
                for k in node.keywords
                if k.arg in named
                for n in range(k.lineno, (k.end_lineno or k.lineno) + 1)
            }
            numbers = sorted({line, end, *deciding})
        shown, previous = [], line - 1
        for n in numbers:
            if n > previous + 1:
                shown.append(
                    self.lines[n - 1][: len(self.lines[n - 1]) - len(self.lines[n - 1].lstrip())]
                    + "..."
                )
            shown.append(self.lines[n - 1])
            previous = n
        return textwrap.dedent("\n".join(shown)).strip()

    # -- sites --------------------------------------------------------------------------

    def _decorator(self, node: ast.AST) -> None:
        """`@torch.cuda.amp.custom_fwd` applies the function: reported like a call, on its line."""
        if not isinstance(node, (ast.Name, ast.Attribute)) or id(node) in self.consumed:
            return
        qualified = self.resolver.qualified(node, self.scope)
        rules = self.index.calls.get(qualified or "", [])
        for rule in rules:
            confidence = check(
                rule.match,
                ast.Call(func=node, args=[], keywords=[]),
                self.resolver,
                self.scope,
                None,
                method=False,
                dicts=self.dicts,
                usages=self.usages,
            )
            if confidence:
                self._report(rule, qualified or "", node, confidence, "decorator")
        if rules:
            self.consumed.add(id(node))
            self._cover(node)

    def _import(self, node: ast.AST) -> None:
        """`import torch._six`, `from torch._six import inf`, `from torch import _six`: a module
        matcher is reported at the import statement, where a removed module fails. An import in
        a try that catches ImportError is a fallback written for the change: not reported."""
        if not self.index.modules or self.guarded:
            return
        if isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            return
        for module, rules in self.index.modules.items():
            if any(name == module or name.startswith(f"{module}.") for name in imported):
                for rule in rules:
                    self._report(rule, module, node, rule.match.confidence, "import")

    def _class(self, node: ast.AST) -> None:
        assert isinstance(node, ast.ClassDef)
        for base in node.bases:
            qualified = self.resolver.qualified(base, self.scope)
            for rule in self.index.calls.get(qualified or "", []):
                self.consumed.add(id(base))
                if rule.match.when != Condition():
                    continue  # about the arguments of a call: a subclass passes on its callers' ones
                self._report(
                    rule,
                    qualified or "",
                    node,
                    weakest("medium", rule.match.confidence),
                    "class",
                    node.lineno,
                )

    def _call(self, node: ast.AST) -> None:
        assert isinstance(node, ast.Call)
        func = node.func  # a chain ending in a name no call or method has never comes here (`run`)
        qualified = self.resolver.qualified(func, self.scope)
        if qualified == "functools.partial" and node.args:
            self._partial(node)
        if qualified:
            self.consumed.add(id(func))
            if func.__class__ is ast.Name:
                self.called.add(func.id)
            elif _on_self(func):
                self.called.add(f"self.{func.attr}")  # type: ignore[attr-defined]
            # an alias bound one way per branch: what reaches this call; one of several runs on some runs only: medium at most
            # (the version tests its binding is under count for the symbol: `else: wn = nn.utils.weight_norm`
            # under `if hasattr(nn.utils.parametrizations, "weight_norm")` runs before torch 2.1 only)
            symbols = (
                self.resolver.possible(func, self.scope, self.conditions)
                if func.__class__ is ast.Name and func.id in self.resolver.alternated
                else ((qualified, ()),)
            )
            site = self.conditions
            for symbol, arms in symbols:
                self.conditions = (
                    (*site, *(arm for arm in arms if arm not in site)) if arms else site
                )
                for rule in self.index.calls.get(symbol, []):
                    input_tag = self.resolver.tag(node.args[0], self.scope) if node.args else None
                    confidence = check(
                        rule.match,
                        node,
                        self.resolver,
                        self.scope,
                        input_tag,
                        method=False,
                        dicts=self.dicts,
                        usages=self.usages,
                    )
                    if confidence:
                        note = (
                            forwarded(rule.match.when, node, self.resolver, self.scope)
                            if rule.match.when.none_is_default
                            else None
                        )
                        self._report(
                            rule,
                            symbol,
                            node,
                            weakest("medium", confidence) if len(symbols) > 1 else confidence,
                            "lookup" if func.__class__ is ast.Call else "call",
                            note=note,
                        )
            self.conditions = site
            owner, _, method = qualified.rpartition(".")
            if owner == "torch.Tensor":
                for rule in (
                    r for r in self.index.methods.get(method, []) if r.match.receiver == "tensor"
                ):
                    input_tag = self.resolver.tag(node.args[0], self.scope) if node.args else None
                    confidence = check(
                        rule.match,
                        _drop_first(node),
                        self.resolver,
                        self.scope,
                        input_tag,
                        method=True,
                        dicts=self.dicts,
                        usages=self.usages,
                    )
                    if confidence:
                        self._report(rule, qualified, node, confidence, "call")
        else:
            if isinstance(func, ast.Attribute) and (
                func.attr in self.index.methods or func.attr in self.index.owned
            ):
                self._method_call(node, func)
            if self.forwards:
                self._module_call(node, func)

    def _module_call(self, node: ast.Call, func: ast.expr) -> None:
        """`attn(q, k, v)` on a module known to be a `torch.nn.MultiheadAttention`: its `forward`'s
        matchers, read against the call's arguments."""
        callee = self.resolver.tag(func, self.scope)
        if callee is None or callee.kind != "module":
            return
        for owner in classes_of(callee):
            symbol = f"{owner}.forward"
            for rule in self.index.calls.get(symbol, []) if owner in self.index.forwards else []:
                confidence = self._check(rule, node, callee)
                if confidence:
                    self._report(rule, symbol, node, confidence, "call")

    def _partial(self, node: ast.Call) -> None:
        """`partial(torch.load, map_location="cpu")`: the arguments bound so far decide what they
        can (a keyword the change needs absent, a value it needs), the later call may add more."""
        target = node.args[0]
        qualified = self.resolver.qualified(target, self.scope)
        rules = self.index.calls.get(qualified or "", [])
        if not rules or id(target) in self.consumed:
            return
        self.consumed.add(id(target))
        bound = ast.Call(func=target, args=node.args[1:], keywords=node.keywords)
        for rule in rules:
            when = for_partial(rule.match.when)
            if when is None:
                continue  # about the data, which the later call passes
            match = replace(rule.match, when=when)
            confidence = check(
                match,
                bound,
                self.resolver,
                self.scope,
                None,
                method=False,
                dicts=self.dicts,
                usages=self.usages,
            )
            if confidence:
                self._report(rule, qualified or "", node, weakest(confidence, "medium"), "partial")

    def _method_call(self, node: ast.Call, func: ast.Attribute) -> None:
        """A method call: on a receiver of a known class, the matchers about that class's
        methods (`opt.zero_grad()` is the optimizer's, `a.ptp()` the array's); on one of
        unknown type, the matchers of tensor methods whose names are torch's alone."""
        receiver = self.resolver.tag(func.value, self.scope)
        owners = classes_of(receiver)
        if owners:
            known = self._owned_method_call(node, func, owners, receiver)
            if known or not _unlisted_torch_class(owners):
                return
            receiver = None  # of a torch class no matcher knows this method of: its name decides, as before
        if receiver is not None:
            return  # a number, a shape: no method of a library class
        if func.attr in COMMON_METHODS or not self.uses_torch:
            return
        if self.resolver.qualified(func.value, self.scope):
            return  # a module's function, e.g. np.clip: calls are matched by name
        if isinstance(func.value, ast.Name) and func.value.id == "self" and not self._tensor_self():
            return  # `self.stft(x)`: a method or attribute of the project's own class
        for rule in self.index.methods.get(func.attr, []):
            if on_receiver_dtype(rule.match.when):
                continue  # the condition is on the receiver's dtype: nothing is known of it
            confidence = check(
                rule.match,
                node,
                self.resolver,
                self.scope,
                receiver,
                method=True,
                dicts=self.dicts,
                usages=self.usages,
            )
            if confidence:
                owner = self.index.owners[rule.change.id, func.attr][0]
                limit: Confidence = "low"
                typed = rule.match.when.argument_dtype
                if typed and argument_family(typed[0], node, self.resolver, self.scope, self.dicts):
                    limit = (
                        "medium"  # a tensor argument of the affected dtype: the receiver is one too
                    )
                self._report(
                    rule, f"{owner}.{func.attr}", node, weakest(confidence, limit), "method"
                )

    def _tensor_self(self) -> bool:
        """Whether `self` here may be a tensor: outside a class, or in one deriving from
        torch.Tensor (`class Masked(torch.Tensor)`)."""
        cls = enclosing_class(self.scope)
        if cls is None or not isinstance(cls.node, ast.ClassDef):
            return True
        outer = cls.parent or cls
        return any(
            self.resolver.qualified(b, outer) in ("torch.Tensor", "torch._tensor.Tensor")
            for b in cls.node.bases
        )

    def _owned_method_call(
        self, node: ast.Call, func: ast.Attribute, owners: tuple[str, ...], receiver: Tag | None
    ) -> bool:
        """The matchers about the method of the receiver's classes, nearest first; whether any is
        about it (matched or not)."""
        known = False
        for owner in owners:
            symbol = f"{owner}.{func.attr}"
            for rule in self.index.calls.get(
                symbol, []
            ):  # `numpy.ndarray.ptp`, matched as `a.ptp()`
                known = True
                confidence = self._check(rule, node, receiver)
                if confidence:
                    self._report(rule, symbol, node, confidence, "method")
            for rule in self.index.methods.get(func.attr, []):
                if self.index.applies(rule, func.attr, owner):
                    known = True
                    confidence = self._check(rule, node, receiver)
                    if confidence:
                        self._report(rule, symbol, node, confidence, "method")
        return known

    def _check(self, rule: Rule, call: ast.Call, receiver: Tag | None) -> Confidence | None:
        return check(
            rule.match,
            call,
            self.resolver,
            self.scope,
            receiver,
            method=True,
            dicts=self.dicts,
            usages=self.usages,
        )

    def _reference(self, node: ast.Attribute | ast.Name) -> bool:
        if self.guarded or id(node) in self.consumed or node.ctx.__class__ is not ast.Load:
            return False
        qualified = self.resolver.qualified(node, self.scope)
        rules = self.index.calls.get(qualified or "")
        if not rules or qualified is None:
            return False
        if isinstance(node, ast.Name) and self.resolver.is_alias(node.id, self.scope):
            return False  # reported at its assignment or where it is called
        for rule in rules:
            if self.in_annotation and rule.change.kind != "removed":
                continue
            # map(torch.load, paths) calls it without the keyword, most likely: low
            confidence = reference_confidence(rule.match.when)
            if confidence is None:
                continue  # the condition is about arguments a bare reference does not show
            self._report(
                rule, qualified, node, weakest(confidence, rule.match.confidence), "attribute"
            )
        return True

    def _attribute(self, node: ast.AST) -> None:
        assert isinstance(node, ast.Attribute)
        if id(node) in self.covered:
            return
        if node.attr not in self.attributes and not _on_self(node):
            return  # a chain whose qualified name, if any, ends in a name no call has (`self.op` may be an alias)
        root = node.value
        while root.__class__ is ast.Attribute:
            root = root.value
        # a chain on a local name (self.layer.weight) holds nothing of a module's; one on a call
        # or subscript (f(x).clamp) is read from there, the call and its callee are sites too
        if (
            root.__class__ is ast.Name
            and (
                root.id in self.resolver.importable
                or (self.resolver.stars and self.resolver.maybe_imported(root.id))
            )
            and self._reference(node)
        ):
            self._cover(node)

    def _name(self, node: ast.AST) -> None:
        assert isinstance(node, ast.Name)
        if id(node) not in self.covered:
            self._reference(node)

    def _cover(self, node: ast.AST) -> None:
        """The links below a chain reported whole are not references of their own."""
        while isinstance(node, ast.Attribute):
            node = node.value
            self.covered.add(id(node))

    def _chain(self, node: ast.expr) -> None:
        """The sites of one chain (an alias's value): the chain, else its links."""
        while isinstance(node, ast.Attribute):
            self._attribute(node)
            if id(node.value) in self.covered:
                return
            node = node.value
        if isinstance(node, ast.Name):
            self._name(node)

    def _floor_divide(self, node: ast.AST) -> None:
        assert isinstance(node, ast.BinOp)
        if "//" in self.index.operators:
            left, right = (
                self.resolver.tag(node.left, self.scope),
                self.resolver.tag(node.right, self.scope),
            )
            if is_tensor(left) or is_tensor(right):
                sign = self.signs.floor_agrees(node, self.scope)
                if sign == Sign.NEVER_NEGATIVE:
                    return  # truncation and flooring agree (scan/signs.py)
                forward, reflected = OPERATOR_SYMBOLS["//"]
                for rule in self.index.operators["//"]:
                    # never negative if a name ending in `mask` holds 0/1: kept, low
                    confidence = "low" if sign == Sign.BY_NAME else rule.match.confidence
                    self._report(
                        rule,
                        forward if is_tensor(left) else reflected,
                        node,
                        confidence,
                        "operator",
                    )

    @cached_property
    def signs(self) -> Signs:
        return Signs(self.resolver)

    def _floor_assign(self, node: ast.AST) -> None:
        assert isinstance(node, ast.AugAssign)
        if "//=" in self.index.operators and is_tensor(self.resolver.tag(node.target, self.scope)):
            for rule in self.index.operators["//="]:
                self._report(
                    rule, OPERATOR_SYMBOLS["//="][0], node, rule.match.confidence, "operator"
                )

    def _assign(self, node: ast.AST) -> None:
        assert isinstance(node, ast.Assign)
        value = node.value
        if (
            (
                value.__class__ is ast.Name or value.__class__ is ast.Attribute
            )  # what can have a qualified name
            and all(t.__class__ is ast.Name or _on_self(t) for t in node.targets)
            and self.resolver.qualified(value, self.scope)
        ):
            self.consumed.add(
                id(node.value)
            )  # `op = torch.floor_divide`: the calls of op are reported
            for target in node.targets:
                self.deferred.append(
                    (node.value, key_of(target) or "", self.scope, self.guarded, self.conditions)
                )
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr in self.index.assigns:
                self._attribute_assignment(node, target)

    def _attribute_assignment(self, node: ast.Assign, target: ast.Attribute) -> None:
        """`x.data = v` matters when v is an integer tensor: only then is it reported.

        Weight surgery assigns float values from checkpoints and numpy arrays of unknown dtype
        thousands of times in real code (240 times in transformers 4.25); flagging those would
        bury the rare integer assignment, so a value of unknown dtype is not reported.
        """
        if not self.uses_torch or (
            isinstance(target.value, ast.Name) and target.value.id == "self"
        ):
            return
        receiver = self.resolver.tag(target.value, self.scope)
        if not (is_tensor(receiver) or _parameter_like(target.value)):
            return
        if self.resolver.tag(node.value, self.scope) != INT_TENSOR:
            return
        for rule in self.index.assigns[target.attr]:
            self._report(rule, f"torch.Tensor.{target.attr}", node, rule.match.confidence, "assign")


def _unlisted_torch_class(owners: tuple[str, ...]) -> bool:
    """An instance of a torch class the resolver has no table for (a `torch.cuda.Stream`)."""
    return owners[0].startswith(INSTANCE_ROOTS) and not any(o in TYPED_CLASSES for o in owners)


def _on_self(node: ast.expr) -> bool:
    """`self.attr`: a key of the class's bindings, as a name is of its scope's."""
    return (
        node.__class__ is ast.Attribute
        and node.value.__class__ is ast.Name
        and node.value.id == "self"
    )


def _parameter_like(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in ("weight", "bias")


def _drop_first(call: ast.Call) -> ast.Call:
    """`torch.Tensor.clamp(t, min=0.5)` read as the method call `t.clamp(min=0.5)`."""
    return ast.Call(func=call.func, args=call.args[1:], keywords=call.keywords)
