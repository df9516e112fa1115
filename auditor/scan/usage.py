"""Usage conditions: a second pattern a call's hazard needs in the same function or module.

`zero_grad()` sets `.grad` to None from 2.0; that only matters where `.grad` is read or updated
in place (`p.grad += g`, `p.grad.data`, `if p.grad is None`), so its entry says
`needs_usage = ["attribute:grad"]`. A pattern is `<kind>:<argument>`; each kind is one test
in `KINDS`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from auditor.scan.scopes import Scope

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _attribute(node: ast.AST, name: str) -> bool:
    """`x.name` read (`p.grad.data`, `p.grad[i]`, `p.grad is None`) or updated in place
    (`p.grad += g`); a plain assignment (`p.grad = None`) or deletion reads nothing."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.ctx, ast.Load)
        or (
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Attribute)
            and node.target.attr == name
        )
    )


KINDS: dict[str, Callable[[ast.AST, str], bool]] = {"attribute": _attribute}


def region(scope: Scope, where: str) -> ast.AST:
    """The code a usage is looked for in: the function around the call (comprehensions and
    lambdas are part of it) or the whole module."""
    current = scope
    while current.parent is not None and (
        where == "module" or not isinstance(current.node, FUNCTIONS)
    ):
        current = current.parent
    return current.node


class Usages:
    """Answers `found(pattern, node)`, memoised per region."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, str], bool] = {}

    def found(self, pattern: str, node: ast.AST) -> bool:
        key = (id(node), pattern)
        if key not in self._memo:
            kind, _, argument = pattern.partition(":")
            test = KINDS[kind]
            nodes = list(ast.walk(node))
            called = {
                id(n.func) for n in nodes if isinstance(n, ast.Call)
            }  # torch.autograd.grad(...)
            self._memo[key] = any(test(n, argument) for n in nodes if id(n) not in called)
        return self._memo[key]
