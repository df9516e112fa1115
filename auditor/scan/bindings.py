"""What binds a name, one class per way of binding it (pyflakes' shape).

A binding holds syntax only: the node of the scope its statement runs in (`where`; a `Scope`
there would make a reference cycle through the resolver), the bound target and the value it
is bound from. The resolver reads a binding when its name is first looked up.
"""

from __future__ import annotations

import ast
from typing import NamedTuple


class Binding(NamedTuple):
    """Immutable, and a tuple: a module has a binding for every assignment, made in the walk."""

    where: ast.AST
    target: ast.expr
    value: ast.expr | None
    @property
    def unmakes_import(self) -> bool:
        """Whether it makes the name the project's own, whatever it was imported as."""
        return False

    @property
    def deferred(self) -> bool:
        """Whether it is read when the name is looked up (an import or a definition is known
        from the walk already)."""
        return True


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

    @property
    def unmakes_import(self) -> bool:
        return True


class MatchCapture(Binding):
    """A name captured by a `case` pattern: the value is the subject for a bare capture."""

    __slots__ = ()

    @property
    def unmakes_import(self) -> bool:
        return True


class Import(Binding):
    """`import x`, `from m import x`: the value is a Name holding the qualified name."""

    __slots__ = ()

    @property
    def deferred(self) -> bool:
        return False


class Definition(Binding):
    """`def x`, `class x`, a relative import, `*args`: the project's own."""

    __slots__ = ()

    @property
    def deferred(self) -> bool:
        return False


class Global(Binding):
    """`global x` or `nonlocal x`: the name's bindings here belong to an outer scope."""

    __slots__ = ()

    @property
    def deferred(self) -> bool:
        return False
