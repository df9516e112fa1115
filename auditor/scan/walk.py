"""`ast.NodeVisitor` with a cheaper walk: the scanner's passes spend most of their time walking.

The same dispatch (`visit_<Class>`, else `generic_visit`) with less work per node than the
standard library's: each visitor keeps the bound handler of each node class it has met;
`generic_visit` goes through the fields that can hold nodes only (known per node class,
instead of the `iter_fields` generator over all of them), so names, operators and `Load` or
`Store` contexts are never visited, unless the subclass handles one of them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, ClassVar

# Leaves shared by many nodes: expression contexts and operators carry no children.
_LEAF_BASES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
# Fields that hold identifiers, strings or numbers in every node class that has them.
_SCALAR_FIELDS = frozenset(
    {"id", "attr", "arg", "name", "module", "level", "kind", "type_comment", "conversion", "is_async", "simple"}
)
# Handled by ast.NodeVisitor.visit_Constant for visitors written before Python 3.8.
_LEGACY = ("visit_Num", "visit_Str", "visit_Bytes", "visit_NameConstant", "visit_Ellipsis")


def _leaf_classes() -> list[type]:
    found: list[type] = []
    for base in _LEAF_BASES:
        found += [base, *base.__subclasses__()]
    return found


class FastVisitor(ast.NodeVisitor):
    _handlers: ClassVar[dict[type, str]] = {}
    _children: ClassVar[dict[type, tuple[str, ...]]] = {}
    _skipped_fields: ClassVar[frozenset[str]] = _SCALAR_FIELDS | _LEAF_FIELDS
    _bound: dict[type, Callable[[ast.AST], Any]]  # per visitor: node class -> its handler

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._handlers, cls._children = {}, {}
        handles_leaves = any(hasattr(cls, f"visit_{leaf.__name__}") for leaf in _leaf_classes())
        cls._skipped_fields = _SCALAR_FIELDS if handles_leaves else _SCALAR_FIELDS | _LEAF_FIELDS

    def visit(self, node: ast.AST) -> Any:
        try:
            bound = self._bound
        except AttributeError:  # subclasses need not call our __init__
            bound = self._bound = {}
        handler = bound.get(node.__class__)
        if handler is None:
            handler = bound[node.__class__] = getattr(self, self._handler_name(node.__class__))
        return handler(node)

    @classmethod
    def _handler_name(cls, node_class: type) -> str:
        name = cls._handlers.get(node_class)
        if name is not None:
            return name
        name = "visit_" + node_class.__name__
        if not hasattr(cls, name):
            name = "generic_visit"
        elif (
            name == "visit_Constant"
            and cls.visit_Constant is ast.NodeVisitor.visit_Constant
            and not any(hasattr(cls, legacy) for legacy in _LEGACY)
        ):
            name = "generic_visit"  # a Constant has no child nodes
        cls._handlers[node_class] = name
        return name

    def generic_visit(self, node: ast.AST) -> None:
        fields = self._children.get(node.__class__)
        if fields is None:
            fields = self._children[node.__class__] = tuple(
                f for f in node._fields if f not in self._skipped_fields
            )
        visit = self.visit
        for field in fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        visit(item)
            elif isinstance(value, ast.AST):
                visit(value)
