"""Scopes: what each function, class, comprehension and the module binds, and the one rule
by which a name is looked up from a scope."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from auditor.scan.bindings import FROM_WALK, Binding
from auditor.scan.tags import Tag


@dataclass(eq=False)
class Scope:
    node: ast.AST
    parent: Scope | None
    is_class: bool = False
    bindings: dict[str, list[Binding]] = field(
        default_factory=dict
    )  # name (or self.attr) -> its bindings
    unread: set[str] = field(
        default_factory=set
    )  # names with bindings the resolver has not read yet
    # what the bindings read so far make of a name: a qualified name (an import or an alias) or a tag
    qualified: dict[str, str] = field(default_factory=dict)
    tags: dict[str, Tag] = field(default_factory=dict)
    aliases: set[str] = field(default_factory=set)  # names bound by `name = qualified.thing`
    # per alias, the qualified name each of its bindings gives and the branches it is on
    # (`Resolver.possible`), by binding target, in source order
    alias_bindings: dict[str, dict[int, tuple[str, Conditions]]] = field(default_factory=dict)
    lives_in: dict[str, Scope] = field(
        default_factory=dict
    )  # global/nonlocal name -> the scope it lives in
    stars: list[str] = field(default_factory=list)  # modules imported with `from m import *`
    returns: dict[str, ast.expr] = field(default_factory=dict)  # function name -> return annotation
    functions: dict[str, ast.AST] = field(default_factory=dict)  # function name -> its def
    returned: list[ast.expr] = field(default_factory=list)  # this function's `return` values
    classes: dict[str, list[ast.expr]] = field(default_factory=dict)  # class name -> bases
    calls: list[ast.Call] = field(default_factory=list)  # calls of project functions made here
    reads: set[str] = field(default_factory=set)  # names read here (not in inner scopes)

    def binds(self, name: str) -> bool:
        return name in self.bindings or name in self.qualified or name in self.tags

    def add(self, key: str, binding: Binding) -> None:
        self.bindings.setdefault(key, []).append(binding)
        if type(binding) not in FROM_WALK:
            self.unread.add(key)


# a test, the outcome the code needs, and the scope the test is read in (`guards`)
Condition = tuple[ast.expr, bool, Scope]
Conditions = tuple[Condition, ...]


def lookup(key: str, scope: Scope | None) -> Scope | None:
    """The scope that binds `key` (a name, or `self.attr`) as seen from `scope`, Python's way:
    the innermost that binds it, where class bodies are seen from themselves only (and
    `self.attr`, which belongs to the class, from its methods), and a `global` or `nonlocal`
    name is looked up where it was declared to live."""
    first = True
    while scope is not None:
        if scope.is_class and not first and not key.startswith("self."):
            scope = scope.parent  # class bodies are not visible from their methods
            continue
        if scope.lives_in and key in scope.lives_in:
            outer = scope.lives_in[key]
            return outer if outer.binds(key) else None
        if scope.binds(key):
            return scope
        first = False
        scope = scope.parent
    return None


def owner_for(key: str, scope: Scope) -> Scope:
    """The scope a binding of `key` made in `scope` belongs to: `self.x` set in a method
    belongs to the class, a global or nonlocal name to the scope declared."""
    if key.startswith("self.") and scope.parent is not None and scope.parent.is_class:
        return scope.parent
    return scope.lives_in.get(key, scope)


def key_of(target: ast.AST) -> str | None:
    """The key a target binds: a name, `self.attr`, or the name under a star."""
    if isinstance(target, ast.Name):
        return target.id
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        return f"self.{target.attr}"
    if isinstance(target, ast.Starred):
        return key_of(target.value)
    return None


def enclosing_class(scope: Scope | None) -> Scope | None:
    """The class whose body `scope` is, or holds it."""
    while scope is not None and not scope.is_class:
        scope = scope.parent
    return scope
