"""`ast.NodeVisitor` with a cheaper walk: the scanner's one walk of each module spends most of its time here.

The same dispatch (`visit_<Class>`, else `generic_visit`) with less work per node than the
standard library's: each visitor class keeps the handler of each node class it has met;
`generic_visit` goes through the fields that can hold nodes only (known per node class,
instead of the `iter_fields` generator over all of them), so names, operators and `Load` or
`Store` contexts are never visited, unless the subclass handles one of them; nor is a
constant, which holds no nodes, unless the subclass handles constants or overrides
`generic_visit`.
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
    {
        "id",
        "attr",
        "arg",
        "name",
        "module",
        "level",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "simple",
    }
)
# Fields that hold no nodes in these classes only (elsewhere a field of that name does): without
# them a constant, the most common leaf after names, needs no visit at all.
_SCALAR_FIELDS_OF: dict[type, frozenset[str]] = {
    ast.Constant: frozenset({"value"}),
    ast.MatchSingleton: frozenset({"value"}),
    ast.alias: frozenset({"asname"}),
    ast.Global: frozenset({"names"}),
    ast.Nonlocal: frozenset({"names"}),
    ast.MatchClass: frozenset({"kwd_attrs"}),
    ast.MatchMapping: frozenset({"rest"}),
}
# Handled by ast.NodeVisitor.visit_Constant for visitors written before Python 3.8.
_LEGACY = ("visit_Num", "visit_Str", "visit_Bytes", "visit_NameConstant", "visit_Ellipsis")


def _leaf_classes() -> list[type]:
    found: list[type] = []
    for base in _LEAF_BASES:
        found += [base, *base.__subclasses__()]
    return found


class FastVisitor(ast.NodeVisitor):
    # node class -> its handler; None for what needs no visit (no handler, no child nodes, or
    # not a node at all: the None of an empty field, the strings in Global.names)
    _dispatch: ClassVar[dict[type, Callable[[Any, Any], Any] | None]] = {}
    _children: ClassVar[dict[type, tuple[str, ...]]] = {}
    _skipped_fields: ClassVar[frozenset[str]] = _SCALAR_FIELDS | _LEAF_FIELDS

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._dispatch, cls._children = {}, {}
        handles_leaves = any(hasattr(cls, f"visit_{leaf.__name__}") for leaf in _leaf_classes())
        cls._skipped_fields = _SCALAR_FIELDS if handles_leaves else _SCALAR_FIELDS | _LEAF_FIELDS

    def visit(self, node: ast.AST) -> Any:
        # Plain functions kept per class, not methods bound per visitor: a visitor holding its
        # own bound methods would be a reference cycle, left (with its tree) to the collector.
        handler = self._dispatch.get(node.__class__, _UNSEEN)
        if handler is _UNSEEN:
            handler = self._handler(node.__class__)
        return handler(self, node) if handler is not None else None

    @classmethod
    def _handler(cls, node_class: type) -> Callable[[Any, Any], Any] | None:
        handler: Callable[[Any, Any], Any] | None = None
        if issubclass(node_class, ast.AST):
            name = "visit_" + node_class.__name__
            if (
                name == "visit_Constant"
                and cls.visit_Constant is ast.NodeVisitor.visit_Constant
                and not any(hasattr(cls, legacy) for legacy in _LEGACY)
            ):
                name = "generic_visit"  # what NodeVisitor.visit_Constant would do for us
            handler = getattr(cls, name, cls.generic_visit)
            if handler is FastVisitor.generic_visit and not cls._fields_of(node_class):
                handler = None  # nothing below it
        cls._dispatch[node_class] = handler
        return handler

    @classmethod
    def _fields_of(cls, node_class: type) -> tuple[str, ...]:
        fields = cls._children.get(node_class)
        if fields is None:
            scalars = _SCALAR_FIELDS_OF.get(node_class, frozenset())
            fields = cls._children[node_class] = tuple(
                f
                for f in node_class._fields  # type: ignore[attr-defined]
                if f not in cls._skipped_fields and f not in scalars
            )
        return fields

    def visit_each(self, nodes: list[ast.expr]) -> None:
        """`visit` of each of `nodes`, dispatched here: a call less per node."""
        dispatch = self._dispatch
        for item in nodes:
            handler = dispatch.get(item.__class__, _UNSEEN)
            if handler is _UNSEEN:
                handler = self._handler(item.__class__)
            if handler is not None:
                handler(self, item)

    def generic_visit(self, node: ast.AST) -> None:
        """The children of `node`, dispatched here rather than through `visit` (a call less
        per node: the walk's cost is its calls)."""
        fields = self._children.get(node.__class__)
        if fields is None:
            fields = self._fields_of(node.__class__)
        dispatch = self._dispatch
        for field in fields:
            value = getattr(node, field, None)
            for item in value if value.__class__ is list else (value,):
                handler = dispatch.get(item.__class__, _UNSEEN)
                if handler is _UNSEEN:
                    handler = self._handler(item.__class__)
                if handler is not None:
                    handler(self, item)


_UNSEEN: Any = object()
