"""Guards made plain: constants folded (`False and ...` never holds), negations pushed into
comparisons, an `elif` chain's `not x == 'a'` dropped where `x == 'b'` already says it."""

from __future__ import annotations

import ast

_NEGATED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def simplify(guard: str) -> str | bool:
    """The guard, simpler; True when it always holds, False when it never does."""
    try:
        tree = ast.parse(guard, mode="eval").body
    except SyntaxError:
        return guard
    result = _simplify(tree)
    return result if isinstance(result, bool) else ast.unparse(result)


def _simplify(node: ast.expr) -> ast.expr | bool:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.BoolOp):
        return _bool_op(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _simplify(node.operand)
        if isinstance(inner, bool):
            return not inner
        if (
            isinstance(inner, ast.Compare)
            and len(inner.ops) == 1
            and type(inner.ops[0]) in _NEGATED
        ):
            return ast.Compare(inner.left, [_NEGATED[type(inner.ops[0])]()], inner.comparators)
        return ast.UnaryOp(ast.Not(), inner)
    if isinstance(node, ast.Compare):
        try:
            return bool(ast.literal_eval(node))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return node
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value is None
    ):
        return False  # isinstance(None, ProcessGroup): a default of None put in by the harvest
    return node


def _bool_op(node: ast.BoolOp) -> ast.expr | bool:
    conjunction = isinstance(node.op, ast.And)
    values: list[ast.expr] = []
    for value in node.values:
        folded = _simplify(value)
        if isinstance(folded, bool):
            if folded is not conjunction:
                return folded  # `False and ...`, `True or ...`
            continue
        if isinstance(folded, ast.BoolOp) and isinstance(folded.op, type(node.op)):
            values += folded.values
        else:
            values.append(folded)
    if conjunction:
        values = _drop_implied(values)
    if not values:
        return conjunction
    return values[0] if len(values) == 1 else ast.BoolOp(node.op, values)


def _drop_implied(values: list[ast.expr]) -> list[ast.expr]:
    """`x != 'a' and x == 'b'`: the equality says it all."""
    equal = {
        ast.unparse(v.left)
        for v in values
        if isinstance(v, ast.Compare)
        and len(v.ops) == 1
        and isinstance(v.ops[0], ast.Eq)
        and isinstance(v.comparators[0], ast.Constant)
    }
    return [
        v
        for v in values
        if not (
            isinstance(v, ast.Compare)
            and len(v.ops) == 1
            and isinstance(v.ops[0], ast.NotEq)
            and isinstance(v.comparators[0], ast.Constant)
            and ast.unparse(v.left) in equal
        )
    ]
