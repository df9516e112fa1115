"""What binds a name, one class per way of binding it (pyflakes' shape).

A binding holds syntax only: the node of the scope its statement runs in (`where`; a `Scope`
there would make a reference cycle through the resolver), the bound target and the value it
is bound from. The resolver reads a binding when its name is first looked up.
"""

from __future__ import annotations

import ast


class Binding(tuple[ast.AST, ast.AST, "ast.expr | None"]):
    """Immutable, and a plain tuple made in C: a module has a binding for every assignment,
    each made in the walk. Made as `Assignment((where, target, value))`."""

    __slots__ = ()

    @property
    def where(self) -> ast.AST:
        return self[0]

    @property
    def target(self) -> ast.AST:
        """The bound expression; for an import, a definition or a declaration, its statement."""
        return self[1]

    @property
    def value(self) -> ast.expr | None:
        return self[2]


class Assignment(Binding):
    """`x = v`, `x := v`, `self.x = v`, `with v as x`, `self.register_buffer("x", v)`."""

    __slots__ = ()


class Unpacking(Binding):
    """One target of `a, b = v`: the value is the whole right-hand side."""

    __slots__ = ()


class ForTarget(Binding):
    """`for x in v`, and the targets of comprehensions: the value is what is iterated."""

    __slots__ = ()


class Annotated(Binding):
    """`x: T` without a value: the value is the annotation."""

    __slots__ = ()


class Parameter(Binding):
    """A function's parameter: the value is its annotation (or None)."""

    __slots__ = ()


class ExceptAs(Binding):
    """`except E as x`: x is the exception caught, whatever it was imported as."""

    __slots__ = ()


class MatchCapture(Binding):
    """A name captured by a `case` pattern: the value is the subject for a bare capture."""

    __slots__ = ()


class Import(Binding):
    """`import x`, `from m import x`: the qualified name is in the scope's `qualified`."""

    __slots__ = ()


class Definition(Binding):
    """`def x`, `class x`, a relative import, `*args`: the project's own."""

    __slots__ = ()


class Global(Binding):
    """`global x` or `nonlocal x`: the name's bindings here belong to an outer scope."""

    __slots__ = ()


# Bindings that make the name the project's own, whatever it was imported as.
UNMAKES_IMPORT: frozenset[type[Binding]] = frozenset({ExceptAs, MatchCapture})
# Bindings known from the walk already: the others are read when their name is looked up.
FROM_WALK: frozenset[type[Binding]] = frozenset({Import, Definition, Global})
