"""What a name is built from in view: the keys of a dict for keyword conditions through
`f(**kwargs)`, the values of a name for conditions on an argument (a mask built by a comparison).

The keys of a dict built in view, for keyword conditions through `f(**kwargs)`:

`DataLoader(ds, **kwargs)` hides its keywords; where `kwargs` is built in the same function
from literals (`{...}`, `dict(...)`, `.update(...)` with literals or keywords,
`kwargs["k"] = v`), its keys are known and a condition on a keyword is decided, not guessed.

A key is *certain* when a statement at the top level of the function's body puts it there (it
runs whenever the call does), and only *possible* when the statement sits in an `if`, a loop,
a `try` or a `with`. A dict that escapes (passed to a function, updated from a value of unknown
keys, assigned from anything but literals, a parameter, global) is unknown: the condition stays
a guess, as without this module.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Methods that read a dict without changing its keys.
_READS = frozenset({"get", "keys", "values", "items", "copy", "__contains__"})
_MAX_DEPTH = 8  # dicts built from dicts built from dicts ...: deeper is unknown


@dataclass
class Keys:
    """What a dict holds: keys always there, with their value, and keys that may be there
    (with every value they may take; an empty list when a value is not in view)."""

    certain: dict[str, ast.expr] = field(default_factory=dict)
    possible: dict[str, list[ast.expr]] = field(default_factory=dict)
    present: set[str] = field(
        default_factory=set
    )  # possible keys that are there whichever value they take

    def add(self, key: str, value: ast.expr | None, certain: bool) -> None:
        if certain and value is not None and key not in self.possible:
            self.certain[key] = value
            return
        values = self.possible.setdefault(key, [])
        if key in self.certain:
            values.append(self.certain.pop(key))
        if value is not None:
            values.append(value)

    def merge(self, other: Keys, certain: bool) -> None:
        for key, value in other.certain.items():
            self.add(key, value, certain)
        for key, values in other.possible.items():
            self.add(key, None, False)
            self.possible[key].extend(values)
        if certain:
            self.present |= other.present

    def weaken(self) -> None:
        """Every key only possible: the dict is replaced or changed where it may not run."""
        for key in list(self.certain):
            self.add(key, None, False)
        self.present.clear()


class Dicts:
    """Answers `keys(expr, scope_node)` for one module, memoised per name and scope."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, str], Keys | None] = {}
        # name -> its assigned values, whether it is a parameter, the line of its first
        # assignment at the top level of the body
        self._values: dict[tuple[int, str], tuple[list[ast.expr], bool, int | None] | None] = {}

    def keys(self, expr: ast.expr, where: ast.AST, depth: int = 0) -> Keys | None:
        """The keys of the dict `expr` evaluates to in the function (or module) `where`."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, ast.Dict):
            found = Keys()
            for key, value in zip(expr.keys, expr.values):
                if key is None:  # {**base, ...}
                    inner = self.keys(value, where, depth + 1)
                    if inner is None:
                        return None
                    found.merge(inner, certain=True)
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    found.add(key.value, value, certain=True)
                else:
                    return None
            return found
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id == "dict"
        ):
            if len(expr.args) > 1:
                return None
            found = Keys()
            if expr.args:
                inner = self.keys(expr.args[0], where, depth + 1)
                if inner is None:
                    return None
                found.merge(inner, certain=True)
            return _with_keywords(found, expr.keywords, where, self, depth)
        if isinstance(expr, ast.IfExp):  # {...} if accelerated else {}
            body, orelse = (
                self.keys(expr.body, where, depth + 1),
                self.keys(expr.orelse, where, depth + 1),
            )
            if body is None or orelse is None:
                return None
            found = Keys()  # a key on both sides is there, but with which value is a guess
            for side in (body, orelse):
                found.merge(side, certain=False)
            found.present = (body.certain.keys() | body.present) & (
                orelse.certain.keys() | orelse.present
            )
            return found
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == "copy"
        ):
            return (
                None if expr.args or expr.keywords else self.keys(expr.func.value, where, depth + 1)
            )
        if isinstance(expr, ast.Name):
            memo = (id(where), expr.id)
            if memo not in self._memo:
                self._memo[memo] = None  # a dict built from itself is unknown
                self._memo[memo] = self._name(expr.id, where, depth)
            return self._memo[memo]
        return None

    def values(self, name: str, where: ast.AST, line: int) -> list[ast.expr] | None:
        """Every value `name` is assigned in the function (or module) `where`, when plain
        assignments (`name = value`) are its only bindings there; None otherwise. A parameter
        qualifies where a statement of the body's top level before `line` assigns it (then
        what the caller passed is gone by `line`: `mask = (mask == 0).view(shape)`)."""
        memo = (id(where), name)
        if memo not in self._values:
            self._values[memo] = _assigned(name, where)
        found = self._values[memo]
        if found is None:
            return None
        values, parameter, first_top = found
        if parameter and (first_top is None or first_top >= line):
            return None
        return values

    def _name(self, name: str, where: ast.AST, depth: int) -> Keys | None:
        if not isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            return None
        if isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_parameter(
            name, where.args
        ):
            return None
        found = Keys()
        assigned = 0
        for statement, top in _statements(where.body, top=True):
            for node in _walk_own(statement):
                if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
                    return None
            kept = self._statement(name, statement, top, found, where, depth)
            if kept is None:
                return None
            assigned += kept
        if assigned == 0:
            return None
        uses = [
            n for s, _ in _statements(where.body, top=True) for n in _walk_own(s) if _is(n, name)
        ]
        nested = [n for n in ast.walk(where) if _is(n, name)]
        if len(nested) != len(uses):
            return None  # read or changed in a nested function or class: not all in view
        return found

    def _statement(
        self, name: str, statement: ast.stmt, top: bool, found: Keys, where: ast.AST, depth: int
    ) -> int | None:
        """Apply one statement to `found`: how many assignments of `name` it makes, or None when
        it uses the dict in a way that may change its keys unseen."""
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = [statement.target]
        assigned = 0
        allowed: set[int] = set()  # the Name nodes of `name` this statement accounts for
        for target in targets:
            if _is(target, name):
                if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                    return None  # kwargs |= other, a = kwargs = {...}
                value = self.keys(statement.value, where, depth + 1)
                if value is None:
                    return None
                if found.certain or found.possible:
                    found.weaken()  # replaced: which of the two builds a later call sees is a guess
                    found.merge(value, certain=False)
                else:
                    found.merge(value, certain=top)
                assigned += 1
                allowed.add(id(target))
            elif isinstance(target, ast.Subscript) and _is(target.value, name):
                key = target.slice
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return None
                assert isinstance(statement, ast.Assign)
                found.add(key.value, statement.value, certain=top)
                allowed.add(id(target.value))
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            func = call.func
            if isinstance(func, ast.Attribute) and _is(func.value, name) and func.attr == "update":
                update = Keys()
                for argument in call.args:
                    inner = self.keys(argument, where, depth + 1)
                    if inner is None or len(call.args) > 1:
                        return None
                    update.merge(inner, certain=True)
                if _with_keywords(update, call.keywords, where, self, depth) is None:
                    return None
                found.merge(update, certain=top)
                allowed.add(id(func.value))
            elif (
                isinstance(func, ast.Attribute)
                and _is(func.value, name)
                and func.attr in ("pop", "setdefault")
            ):
                first = call.args[0] if call.args else None
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    return None
                found.add(
                    first.value,
                    call.args[1] if func.attr == "setdefault" and len(call.args) > 1 else None,
                    certain=False,
                )
                if func.attr == "pop":
                    found.present.discard(first.value)
                allowed.add(id(func.value))
        if isinstance(statement, ast.Delete):
            for target in statement.targets:
                if isinstance(target, ast.Subscript) and _is(target.value, name):
                    key = target.slice
                    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                        return None
                    found.add(key.value, None, certain=False)
                    found.present.discard(key.value)
                    allowed.add(id(target.value))
        for node in _walk_own(statement):
            if id(node) in allowed:
                continue
            for child in ast.iter_child_nodes(node):
                if (
                    isinstance(child, ast.Name)
                    and child.id == name
                    and id(child) not in allowed
                    and not _reads(node, child)
                ):
                    return None
        return assigned


def _assigned(name: str, where: ast.AST) -> tuple[list[ast.expr], bool, int | None] | None:
    if not isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        return None
    parameter = isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_parameter(
        name, where.args
    )
    values: list[ast.expr] = []
    first_top: int | None = None
    for statement, top in _statements(where.body, top=True):
        for node in _walk_own(statement):
            if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
                return None
            if (
                isinstance(node, ast.Name)
                and node.id == name
                and not isinstance(node.ctx, ast.Load)
            ):
                if not (
                    isinstance(statement, ast.Assign) and any(t is node for t in statement.targets)
                ):
                    return None  # bound by a loop, with, unpacking, del, +=: not a plain value
                values.append(statement.value)
                if top and first_top is None:
                    first_top = statement.lineno
    return (values, parameter, first_top) if values else None


def _with_keywords(
    found: Keys, keywords: list[ast.keyword], where: ast.AST, dicts: Dicts, depth: int
) -> Keys | None:
    for keyword in keywords:
        if keyword.arg is None:
            inner = dicts.keys(keyword.value, where, depth + 1)
            if inner is None:
                return None
            found.merge(inner, certain=True)
        else:
            found.add(keyword.arg, keyword.value, certain=True)
    return found


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _reads(parent: ast.AST, child: ast.expr) -> bool:
    """Whether `parent` only reads the dict `child`: spreads it, indexes it, tests a key."""
    if isinstance(parent, ast.keyword) and parent.arg is None:
        return True  # f(**kwargs)
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
        return True
    if isinstance(parent, ast.Compare) and any(
        isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops
    ):
        return child is not parent.left
    if isinstance(parent, ast.Attribute) and parent.attr in _READS:
        return True
    if isinstance(parent, ast.Call) and child in parent.args:  # other.update(kwargs), dict(kwargs)
        func = parent.func
        return (isinstance(func, ast.Attribute) and func.attr == "update") or (
            isinstance(func, ast.Name) and func.id == "dict"
        )
    if isinstance(parent, ast.Dict):
        return any(
            k is None and v is child for k, v in zip(parent.keys, parent.values)
        )  # {**kwargs}
    return False


def _is_parameter(name: str, args: ast.arguments) -> bool:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return any(a is not None and a.arg == name for a in every)


def _statements(body: list[ast.stmt], top: bool) -> list[tuple[ast.stmt, bool]]:
    """The statements of a function body (not of functions or classes nested in it), each with
    whether it runs whenever the body does (it is not in an if, loop, try or with)."""
    found: list[tuple[ast.stmt, bool]] = []
    for statement in body:
        found.append((statement, top))
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for part in getattr(statement, name, ()):
                inner = (
                    part.body if isinstance(part, (ast.ExceptHandler, ast.match_case)) else [part]
                )
                found += _statements(inner, top=False)
    return found


def _walk_own(statement: ast.stmt) -> list[ast.AST]:
    """The nodes of one statement itself: its expressions, not the statements nested in it."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        heads: list[ast.AST] = [*statement.decorator_list]
        if isinstance(statement, ast.ClassDef):
            heads += [*statement.bases, *statement.keywords]
        else:
            heads += [
                d for d in [*statement.args.defaults, *statement.args.kw_defaults] if d is not None
            ]
    else:
        heads = [
            child
            for child in ast.iter_child_nodes(statement)
            if not isinstance(child, (ast.stmt, ast.ExceptHandler, ast.match_case))
        ]
    nodes: list[ast.AST] = [statement]
    for head in heads:
        nodes += ast.walk(head)
    return nodes
