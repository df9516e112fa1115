"""Whether the project runs a class's code at all: a class that no code of the project names.

A method of a class that its module never uses outside the class's own body, that carries no
decorator (a registry), and whose name no other Python file of the project holds as a word,
is not run by the project: nothing creates the class, subclasses it or looks it up by name. A
hub entry's class in a `hubconf.py`, or a helper kept after a refactor, is such a class. A
class built from a string made at run time (`getattr(module, f"{kind}Model")`) is out of view.
"""

from __future__ import annotations

import ast

from auditor.scan.names import Resolver
from auditor.scan.scopes import Scope, enclosing_class


def unused_class(resolver: Resolver, scope: Scope) -> str | None:
    """The name of the class whose body `scope` is in, when the project never names it."""
    found = enclosing_class(scope)
    if found is None or not isinstance(found.node, ast.ClassDef) or found.node.decorator_list:
        return None
    cls = found.node
    module = found
    while module.parent is not None:
        module = module.parent
    inside = {id(node) for node in ast.walk(cls)}
    for node in ast.walk(module.node):
        if id(node) in inside:
            continue
        if (
            (isinstance(node, ast.Name) and node.id == cls.name)
            or (isinstance(node, ast.Attribute) and node.attr == cls.name)
            or (isinstance(node, ast.Constant) and node.value == cls.name)
            or (isinstance(node, ast.alias) and cls.name in (node.name, node.asname))
        ):
            return None
    if resolver.modules is not None and resolver.modules.names(cls.name, resolver.path):
        return None
    return cls.name
