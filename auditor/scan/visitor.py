"""Second pass over a module: every place a compiled rule applies, as a `Finding`."""

from __future__ import annotations

import ast
import re

from auditor.models import Confidence, Finding
from auditor.scan.names import FLOAT, FLOAT_TENSOR, INT_TENSOR, MODULE, NDARRAY, Resolver, Scope, is_tensor
from auditor.scan.rules import OPERATOR_SYMBOLS, Rule, RuleIndex, check, weakest

# Method names that numpy arrays, pandas objects or Python builtins also have: on a receiver of
# unknown type they say nothing about torch, so they are reported only on known tensors.
COMMON_METHODS = frozenset(
    "clip round sum mean max min all any copy fill sort reshape view astype dot item tolist "
    "flatten squeeze transpose repeat cumsum cumprod prod std var argmax argmin argsort "
    "nonzero take put diagonal trace conj real imag abs get pop update append extend index "
    "count split strip replace join format load save solve".split()
)
_IGNORE = re.compile(r"#\s*auditor:\s*ignore(?:\[([^\]]*)\])?")


class FindingVisitor(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, index: RuleIndex, path: str, lines: list[str]):
        self.resolver = Resolver(tree)
        self.index = index
        self.path = path
        self.lines = lines
        self.scope: Scope = self.resolver.scope_of(tree)
        self.findings: dict[tuple[str, str, int, int], Finding] = {}
        self.consumed: set[int] = set()
        self.uses_torch = any(
            q == "torch" or q.startswith("torch.")
            for s in self.resolver.scopes.values()
            for q in s.qualified.values()
        )

    # -- reporting --------------------------------------------------------------------------

    def _report(self, rule: Rule, symbol: str, node: ast.AST, confidence: Confidence, line: int | None = None) -> None:
        line = line or node.lineno  # type: ignore[attr-defined]
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        ignored = _IGNORE.search(text)
        if ignored and (ignored.group(1) is None or rule.change.id in ignored.group(1).replace(" ", "").split(",")):
            return
        column = node.col_offset + 1 if line == node.lineno else 1  # type: ignore[attr-defined]
        key = (rule.change.id, symbol, line, column)
        previous = self.findings.get(key)
        if previous is not None and weakest(previous.confidence, confidence) == confidence:
            return
        self.findings[key] = Finding(
            change=rule.change.id, symbol=symbol, path=self.path, line=line, column=column,
            cell=None, confidence=confidence, message=rule.message, snippet=text.strip(),
        )

    # -- scopes -----------------------------------------------------------------------------

    def _in_scope(self, node: ast.AST, body: list[ast.AST]) -> None:
        outer, self.scope = self.scope, self.resolver.scope_of(node)
        for child in body:
            self.visit(child)
        self.scope = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for part in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if part is not None:
                self.visit(part)
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            if arg.annotation is not None:
                self.visit(arg.annotation)
        self._in_scope(node, list(node.body))

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._in_scope(node, [node.body])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            qualified = self.resolver.qualified(base, self.scope)
            for rule in self.index.calls.get(qualified or "", []):
                self._report(rule, qualified or "", node, weakest("medium", rule.match.confidence), node.lineno)
                self.consumed.add(id(base))
        for part in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(part)
        self._in_scope(node, list(node.body))

    # -- calls and references ---------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        qualified = self.resolver.qualified(func, self.scope)
        if qualified:
            self.consumed.add(id(func))
            for rule in self.index.calls.get(qualified, []):
                input_tag = self.resolver.tag(node.args[0], self.scope) if node.args else None
                confidence = check(rule.match, node, self.resolver, self.scope, input_tag, method=False)
                if confidence:
                    self._report(rule, qualified, node, confidence)
            owner, _, method = qualified.rpartition(".")
            if owner == "torch.Tensor":
                for rule in self.index.methods.get(method, []):
                    input_tag = self.resolver.tag(node.args[0], self.scope) if node.args else None
                    confidence = check(rule.match, _drop_first(node), self.resolver, self.scope, input_tag, method=True)
                    if confidence:
                        self._report(rule, qualified, node, confidence)
        elif isinstance(func, ast.Attribute) and func.attr in self.index.methods:
            self._method_call(node, func)
        self.generic_visit(node)

    def _method_call(self, node: ast.Call, func: ast.Attribute) -> None:
        receiver = self.resolver.tag(func.value, self.scope)
        if receiver in (NDARRAY, MODULE) or (receiver is not None and not is_tensor(receiver)):
            return
        if receiver is None:
            if func.attr in COMMON_METHODS or not self.uses_torch:
                return
            if self.resolver.qualified(func.value, self.scope):
                return  # a module's function, e.g. np.clip: calls are matched by name
        ceiling: Confidence = "high" if is_tensor(receiver) else "low"
        for rule in self.index.methods[func.attr]:
            confidence = check(rule.match, node, self.resolver, self.scope, receiver, method=True)
            if confidence:
                self._report(rule, f"torch.Tensor.{func.attr}", node, weakest(confidence, ceiling))

    def _reference(self, node: ast.Attribute | ast.Name) -> bool:
        if id(node) in self.consumed or not isinstance(node.ctx, ast.Load):
            return False
        qualified = self.resolver.qualified(node, self.scope)
        rules = self.index.calls.get(qualified or "", [])
        for rule in rules:
            conditional = rule.match.when != type(rule.match.when)()
            confidence: Confidence = "low" if conditional else "medium"
            self._report(rule, qualified or "", node, weakest(confidence, rule.match.confidence))
        return bool(rules)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not self._reference(node):
            self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._reference(node)

    # -- operators and assignments ----------------------------------------------------------

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.FloorDiv) and "//" in self.index.operators:
            left, right = self.resolver.tag(node.left, self.scope), self.resolver.tag(node.right, self.scope)
            if is_tensor(left) or is_tensor(right):
                forward, reflected = OPERATOR_SYMBOLS["//"]
                for rule in self.index.operators["//"]:
                    self._report(rule, forward if is_tensor(left) else reflected, node, rule.match.confidence)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.FloorDiv) and "//=" in self.index.operators:
            if is_tensor(self.resolver.tag(node.target, self.scope)):
                for rule in self.index.operators["//="]:
                    self._report(rule, OPERATOR_SYMBOLS["//="][0], node, rule.match.confidence)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if all(isinstance(t, ast.Name) for t in node.targets) and self.resolver.qualified(node.value, self.scope):
            self.consumed.add(id(node.value))  # `op = torch.floor_divide`: the calls of op are reported
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr in self.index.assigns:
                self._attribute_assignment(node, target)
        self.generic_visit(node)

    def _attribute_assignment(self, node: ast.Assign, target: ast.Attribute) -> None:
        """`x.data = v` matters when v is an integer tensor; float values are what most code assigns."""
        if not self.uses_torch or (isinstance(target.value, ast.Name) and target.value.id == "self"):
            return
        receiver = self.resolver.tag(target.value, self.scope)
        value = self.resolver.tag(node.value, self.scope)
        tensor_like = is_tensor(receiver) or _parameter_like(target.value)
        if not tensor_like or value == FLOAT_TENSOR or _float_arithmetic(node.value, self.resolver, self.scope):
            return
        confidence: Confidence = "high" if value == INT_TENSOR else "low"
        for rule in self.index.assigns[target.attr]:
            self._report(rule, f"torch.Tensor.{target.attr}", node, weakest(confidence, rule.match.confidence))


def _float_arithmetic(node: ast.expr, resolver: Resolver, scope: Scope) -> bool:
    return isinstance(node, ast.BinOp) and (
        resolver.tag(node.left, scope) == FLOAT or resolver.tag(node.right, scope) == FLOAT
    )


def _parameter_like(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in ("weight", "bias")


def _drop_first(call: ast.Call) -> ast.Call:
    """`torch.Tensor.clamp(t, min=0.5)` read as the method call `t.clamp(min=0.5)`."""
    return ast.Call(func=call.func, args=call.args[1:], keywords=call.keywords)
