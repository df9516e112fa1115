"""The rewrites themselves: libcst nodes found by the scan's line and column, changed by each
transform's action, everything else (comments, spacing, line breaks) left as written.

`apply_edits(source, edits, bound)` is the whole interface: each edit is a finding and the
transform chosen for it (see plan.py); it returns the new source, the edits applied and those
left alone, each with its reason. Nested edits compose (an inner `a // b` inside an outer
`torch.floor_divide(...)`): libcst leaves children before parents, and each rewrite reads the
already rewritten children.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from auditor.fix.model import Applied, LeftAlone, LeftAloneKind
from auditor.fix.moves import ImportTable, Move, NoMove, move_imports, plan_import, plan_site
from auditor.fix.spec import Transform
from auditor.knowledge.loader import PLACEHOLDER
from auditor.models import Finding

_EMPTY = cst.Module(body=[])
_ATOMS = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.FormattedString,
    cst.List,
    cst.Tuple,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Ellipsis,
)
_BUILTINS = frozenset(dir(builtins))
MAGIC = "__auditor_magic_"  # notebook lines the engine must not move (see notebook.py)


class Refused(Exception):
    """This call site does not allow the transform; `kind` and the message say why."""

    def __init__(self, kind: LeftAloneKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: LeftAloneKind = kind
        self.reason = reason


Found = list[tuple[cst.CSTNode, CodeRange]]


@dataclass(frozen=True, slots=True)
class Edit:
    """A finding and the transform chosen for it; where the call site does not allow it
    (refused: a missing argument, positional arguments that would move, ...), the `fallbacks`
    (the later transforms of the mode that fit the finding) are tried in order."""

    finding: Finding
    transform: Transform
    fallbacks: tuple[Transform, ...] = ()


def code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def apply_edits(
    source: str,
    edits: Sequence[Edit],
    bound: frozenset[str] = frozenset(),
    table: ImportTable | None = None,
    deferred: list[Move] | None = None,
) -> tuple[str, list[Applied], list[LeftAlone]]:
    """`source` with every edit that fits applied. `bound`: names bound elsewhere (a notebook's
    other cells), so no import of them is added. `table`: the imports the sites may reach their
    names through (a notebook's cells; default: this source's). `deferred`: when given, the import
    lines a replace-module asks to rewrite are added to it, not rewritten here (they may be in
    another cell: see moves.move_imports)."""
    if not edits:
        return source, [], []
    try:
        return _apply_edits(source, edits, bound, table, deferred)
    except (
        cst.ParserSyntaxError,
        RecursionError,
    ) as exc:  # libcst reads less than ast, or nests deeper
        text = str(exc).splitlines()[0] if str(exc) else "nested too deeply"
        return (
            source,
            [],
            [
                LeftAlone(e.finding, "unparsable", f"libcst cannot read this source: {text}")
                for e in edits
            ],
        )


def _apply_edits(
    source: str,
    edits: Sequence[Edit],
    bound: frozenset[str],
    table: ImportTable | None,
    deferred: list[Move] | None,
) -> tuple[str, list[Applied], list[LeftAlone]]:
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    starts: dict[tuple[int, int], Found] = {}  # the nodes starting at each (line, column)
    for node, where in wrapper.resolve(PositionProvider).items():
        starts.setdefault((where.start.line, where.start.column), []).append((node, where))
    lines = re.split(r"\r\n|\r|\n", source)
    targets: dict[int, list[Edit]] = {}
    left: list[LeftAlone] = []
    for edit in edits:
        nodes = _locate(edit, starts, lines)
        if not nodes:
            f = edit.finding
            left.append(
                LeftAlone(
                    f,
                    "not-found",
                    f"no {f.shape} at line {f.line}, column {f.column} (edited since the scan?)",
                )
            )
            continue
        for node in nodes:
            targets.setdefault(id(node), []).append(edit)
    rewriter = _Rewriter(targets, table if table is not None else ImportTable.of([source]))
    new_module = wrapper.module.visit(rewriter)
    left += rewriter.left
    applied = list(dict.fromkeys(rewriter.applied))
    if applied:
        new_module = _add_imports(new_module, rewriter.needs, bound)
    moves = list(dict.fromkeys(rewriter.moves))
    if deferred is not None:
        deferred += moves
        return new_module.code, applied, left
    return move_imports(new_module.code, moves), applied, left


# --- finding the node --------------------------------------------------------------------------


def _char_column(lines: list[str], line: int, column: int) -> int:
    """ast's 1-based UTF-8 byte column as libcst's 0-based character column."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[: column - 1].decode("utf-8", "ignore"))


def _locate(
    edit: Edit, starts: Mapping[tuple[int, int], Found], lines: list[str]
) -> list[cst.CSTNode]:
    f = edit.finding
    here = starts.get((f.line, _char_column(lines, f.line, f.column)), [])
    last = f.symbol.rsplit(".", 1)[-1]

    def smallest(found: Found) -> list[cst.CSTNode]:
        return (
            [min(found, key=lambda item: (item[1].end.line, item[1].end.column))[0]]
            if found
            else []
        )

    def where(test: Callable[[cst.CSTNode], bool]) -> Found:
        return [(n, r) for n, r in here if test(n)]

    if f.shape == "call":
        calls = where(lambda n: isinstance(n, cst.Call))
        named = [(n, r) for n, r in calls if _last_name(n.func) == last]  # type: ignore[attr-defined]
        plain = [(n, r) for n, r in calls if isinstance(n.func, (cst.Name, cst.Attribute))]  # type: ignore[attr-defined]
        return smallest(named or plain)
    if f.shape == "method":
        return smallest(
            where(
                lambda n: (
                    isinstance(n, cst.Call)
                    and isinstance(n.func, cst.Attribute)
                    and n.func.attr.value == last
                )
            )
        )
    if f.shape == "operator":
        if last == "__ifloordiv__":
            return smallest(
                where(
                    lambda n: (
                        isinstance(n, cst.AugAssign)
                        and isinstance(n.operator, cst.FloorDivideAssign)
                    )
                )
            )
        # `a // b // c` is one finding at one place: every `//` starting there
        return [
            n
            for n, _ in where(
                lambda n: (
                    isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.FloorDivide)
                )
            )
        ]
    if f.shape == "import":
        return smallest(where(lambda n: isinstance(n, (cst.Import, cst.ImportFrom))))
    if f.shape == "attribute":
        named = where(lambda n: isinstance(n, (cst.Attribute, cst.Name)) and _last_name(n) == last)
        return smallest(named or where(lambda n: isinstance(n, cst.Name)))
    return []


def _last_name(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


# --- the rewriter ------------------------------------------------------------------------------


@dataclass
class _Rewriter(cst.CSTTransformer):
    targets: dict[int, list[Edit]]
    table: ImportTable
    applied: list[Applied] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)  # replace-module: the import lines to rewrite
    left: list[LeftAlone] = field(default_factory=list)
    needs: set[str] = field(default_factory=set)  # root names the rewrites use (torch of torch.div)

    def __post_init__(self) -> None:
        super().__init__()

    def _apply(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        edits = self.targets.get(id(original))
        if not edits:
            return updated
        done = False
        for edit in edits:
            if done:
                self.left.append(
                    LeftAlone(
                        edit.finding, "overlap", "another fix already rewrote this expression"
                    )
                )
                continue
            refusals: list[tuple[LeftAloneKind, str]] = []
            for transform in (edit.transform, *edit.fallbacks):
                attempt = Edit(edit.finding, transform)
                needs: set[str] = set()
                moves: list[Move] = []
                try:
                    if transform.action == "replace-module":
                        rewritten = _replace_module(updated, attempt, needs, self.table, moves)
                    else:
                        rewritten = _ACTIONS[transform.action](updated, attempt, needs)
                except Refused as refused:
                    refusals.append((refused.kind, refused.reason))
                    continue
                except cst.CSTValidationError as exc:  # the rewrite would not be valid code here
                    refusals.append(("unparsable", f"the rewrite is not valid here: {exc}"))
                    continue
                updated = rewritten
                self.needs |= needs
                self.moves += moves
                self.applied.append(Applied(edit.finding, transform))
                done = True
                break
            else:
                reason = "; ".join(dict.fromkeys(r for _, r in refusals))
                self.left.append(LeftAlone(edit.finding, refusals[0][0], reason))
        return updated

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        return self._apply(original_node, updated_node)  # type: ignore[return-value]

    def leave_BinaryOperation(
        self, original_node: cst.BinaryOperation, updated_node: cst.BinaryOperation
    ) -> cst.BaseExpression:
        return self._apply(original_node, updated_node)  # type: ignore[return-value]

    def leave_AugAssign(
        self, original_node: cst.AugAssign, updated_node: cst.AugAssign
    ) -> cst.BaseSmallStatement:
        return self._apply(original_node, updated_node)  # type: ignore[return-value]

    def leave_Import(
        self, original_node: cst.Import, updated_node: cst.Import
    ) -> cst.BaseSmallStatement:
        return self._apply(original_node, updated_node)  # type: ignore[return-value]

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.BaseSmallStatement:
        return self._apply(original_node, updated_node)  # type: ignore[return-value]

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        return self._apply(original_node, updated_node)  # type: ignore[return-value]

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._apply(original_node, updated_node)  # type: ignore[return-value]


# --- actions -----------------------------------------------------------------------------------


def _expression(source: str, what: str) -> cst.BaseExpression:
    try:
        return cst.parse_expression(source)
    except cst.ParserSyntaxError as exc:
        raise Refused(
            "unparsable", f"the {what} does not give valid Python here: {str(exc).splitlines()[0]}"
        ) from exc


def _uses(source: str, needs: set[str]) -> None:
    """The root names of the dotted names in `source` (torch of `torch.div(...)`), not the names
    the source binds itself (a lambda's parameters, a comprehension's targets: `Vh` of
    `lambda U, S, Vh: Vh.mH`)."""
    try:
        tree = ast.parse(PLACEHOLDER.sub("_", source))
    except SyntaxError:
        return
    bound = {
        a.arg
        for n in ast.walk(tree)
        if isinstance(n, ast.Lambda)
        for a in ast.walk(n.args)
        if isinstance(a, ast.arg)
    }
    bound |= {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    needs.update(
        n.value.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id not in bound
    )


def _set_keyword(node: cst.CSTNode, edit: Edit, needs: set[str]) -> cst.CSTNode:
    t = edit.transform
    assert isinstance(node, cst.Call) and t.keyword is not None and t.value is not None
    _check_positional(
        node, edit
    )  # the keyword's own place given positionally: it would be given twice
    value = _expression(t.value, "value")
    given = [
        i for i, a in enumerate(node.args) if a.keyword is not None and a.keyword.value == t.keyword
    ]
    if given:
        if not t.replace:
            raise Refused("keyword-given", f"the call already gives {t.keyword}=")
        args = list(node.args)
        args[given[0]] = args[given[0]].with_changes(value=value)
        _uses(t.value, needs)
        return node.with_changes(args=args)
    if any(a.star == "**" for a in node.args):
        raise Refused("kwargs-spread", f"a **kwargs spread may already hold {t.keyword}=")
    _uses(t.value, needs)
    new = cst.Arg(
        value=value,
        keyword=cst.Name(t.keyword),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    return node.with_changes(args=_append(node, new))


def _append(node: cst.Call, new: cst.Arg) -> list[cst.Arg]:
    """The call's arguments and `new` last, in the layout of the call: after a trailing comma
    (one argument a line) the new one gets its own line and its own trailing comma."""
    args = list(node.args)
    if not args:
        return [new]
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma):
            between: cst.BaseParenthesizableWhitespace = args[-2].comma.whitespace_after
        else:
            between = node.whitespace_before_args
        if isinstance(between, cst.ParenthesizedWhitespace):  # a new line at the indent, no comment
            between = between.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
        elif isinstance(between, cst.SimpleWhitespace) and not between.value:  # `f(a,)`: one line
            between = cst.SimpleWhitespace(" ")
        args[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=between))
        return [*args, new.with_changes(comma=last.comma)]
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if "#" in code(last.whitespace_after_arg):  # a comment after the last argument stays with it
        return [*args[:-1], last.with_changes(comma=comma), new]
    empty = cst.SimpleWhitespace("")
    return [
        *args[:-1],
        last.with_changes(comma=comma, whitespace_after_arg=empty),
        new.with_changes(whitespace_after_arg=last.whitespace_after_arg),
    ]


def _check_positional(node: cst.Call, edit: Edit) -> None:
    """Refuse a call passing more positional arguments than the transform's `max_positional`
    (in the new callee they would bind to other parameters) or fewer than its `min_positional`."""
    given_keywords = [a.keyword.value for a in node.args if a.keyword is not None]
    for name in edit.transform.keyword_absent:
        if name in given_keywords:
            raise Refused(
                "keyword-given", f"the call gives {name}=, which this rewrite does not keep"
            )
    _check_proven(node, edit.transform)
    positional = [a for a in node.args if a.keyword is None and not a.star]
    for index in edit.transform.not_literal:
        value = positional[index].value if index < len(positional) else None
        if isinstance(value, cst.UnaryOperation):
            value = value.expression
        if isinstance(value, (cst.Integer, cst.Float)):
            raise Refused(
                "positional",
                f"positional argument {index} is the number {code(positional[index].value)}: another form of the call",
            )
    limit, least = edit.transform.max_positional, edit.transform.min_positional
    if limit is None and least is None:
        return
    if any(a.star == "*" for a in node.args):
        raise Refused(
            "positional",
            "a *args spread: how many positional arguments the call passes is not known",
        )
    given = sum(1 for a in node.args if a.keyword is None and not a.star)
    if limit is not None and given > limit:
        raise Refused(
            "positional",
            f"{given} positional arguments given, at most {limit} keep their place: positional arguments would move",
        )
    if least is not None and given < least:
        raise Refused(
            "positional",
            f"{given} positional arguments given: the rewrite is for the form with at least {least}",
        )


def _check_proven(node: cst.Call, t: Transform) -> None:
    """Refuse a call outside the shapes the rewrite was proven on: a keyword not among
    `proven_keywords`, or one of `proven_values` given another value than those listed."""
    if t.proven_keywords is None:
        return
    values = dict(t.proven_values)
    for arg in node.args:
        if arg.star == "**":
            raise Refused(
                "kwargs-spread", "a **kwargs spread: which keywords the call gives is not known"
            )
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name not in t.proven_keywords:
            proven = ", ".join(f"{k}=" for k in t.proven_keywords) or "none"
            raise Refused(
                "unproven-shape",
                f"the call gives {name}=, which the rewrite was not proven with (proven: {proven})",
            )
        if name in values and not _literal_in(_literal_value(arg.value), values[name]):
            raise Refused(
                "unproven-shape",
                (
                    f"the call gives {name}={code(arg.value)}; the rewrite was proven with {name}= "
                    f"{' or '.join(values[name])} only"
                ),
            )


def _literal_value(node: cst.BaseExpression) -> object:
    try:
        return ast.literal_eval(code(node))
    except (ValueError, SyntaxError, TypeError):
        return _NOT_LITERAL


_NOT_LITERAL = object()


def _rename_call(node: cst.CSTNode, edit: Edit, needs: set[str]) -> cst.CSTNode:
    t = edit.transform
    assert isinstance(node, cst.Call) and t.to is not None
    _check_positional(node, edit)
    func = _expression(t.to, "new name")
    leading = [
        cst.Arg(
            value=_expression(p, "prepended argument"),
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
        )
        for p in t.prepend
    ]
    if leading and not node.args:
        leading[-1] = leading[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    _uses(t.to, needs)
    for p in t.prepend:
        _uses(p, needs)
    return node.with_changes(func=func, args=[*leading, *node.args])


def _replace_attribute(node: cst.CSTNode, edit: Edit, needs: set[str]) -> cst.CSTNode:
    t = edit.transform
    assert t.to is not None
    new = _keep_parens(node, _expression(t.to, "replacement"))
    _uses(t.to, needs)
    return new


def _replace_import(node: cst.CSTNode, edit: Edit, needs: set[str]) -> cst.CSTNode:
    t = edit.transform
    assert t.module is not None
    module = _expression(t.module, "module")
    assert isinstance(module, (cst.Name, cst.Attribute))
    if isinstance(node, cst.ImportFrom):
        if node.relative or isinstance(node.names, cst.ImportStar):
            raise Refused(
                "import-form", "a relative or star import: the names it binds are not known"
            )
        if t.symbols and node.module is not None:
            source = code(node.module)
            other = [
                code(a.name) for a in node.names if f"{source}.{code(a.name)}" not in t.symbols
            ]
            if other:
                raise Refused(
                    "import-form",
                    f"imports {', '.join(other)} from {source}, which this fix does not cover",
                )
        if t.name is not None and len(node.names) != 1:
            raise Refused("import-form", f"imports {len(node.names)} names; the fix renames one")
        names = list(node.names)
        if t.name is not None:
            alias = names[0]
            local = alias.asname or cst.AsName(name=cst.Name(code(alias.name)))
            names[0] = alias.with_changes(
                name=cst.Name(t.name), asname=None if code(alias.name) == t.name else local
            )
        return node.with_changes(module=module, names=names)
    assert isinstance(node, cst.Import)
    if t.symbols and not any(code(a.name) in t.symbols for a in node.names):
        raise Refused(
            "import-form", "imports the whole module; this fix covers some of its names only"
        )
    if len(node.names) != 1 or node.names[0].asname is None:
        raise Refused(
            "import-form",
            "`import M` without `as`: the code refers to the module by its dotted name, which a new import does not bind",
        )
    return node.with_changes(names=[node.names[0].with_changes(name=module)])


def _map_keyword(node: cst.CSTNode, edit: Edit, needs: set[str]) -> cst.CSTNode:
    """The keywords read replaced by the keyword written, with the value of the first row of the
    table that the literal values at the call site fit (a keyword not given reads as None)."""
    t = edit.transform
    assert isinstance(node, cst.Call) and t.keyword is not None
    _check_positional(node, edit)
    if any(a.star == "**" for a in node.args):
        raise Refused(
            "kwargs-spread",
            f"a **kwargs spread may hold {' or '.join(f'{k}=' for k in t.keywords)}",
        )
    given = {a.keyword.value: i for i, a in enumerate(node.args) if a.keyword is not None}
    if t.keyword in given and t.keyword not in t.keywords and not t.replace:
        raise Refused("keyword-given", f"the call already gives {t.keyword}=")
    values: dict[str, object] = {}
    for name in t.keywords:
        if name not in given:
            values[name] = None
            continue
        written = code(node.args[given[name]].value)
        try:
            values[name] = ast.literal_eval(written)
        except (ValueError, SyntaxError, TypeError):
            raise Refused(
                "unknown-value",
                f"{name}={written} is not a literal: which {t.keyword}= it means is not known here",
            ) from None
    shown = ", ".join(f"{k}={values[k]!r}" for k in t.keywords if k in given)
    row = next(
        (r for r in t.map if all(_literal_in(values[k], sources) for k, sources in r.when)), None
    )
    if row is None:
        raise Refused("unknown-value", f"no row of the fix's table maps {shown}")
    if row.value is None:
        raise Refused("no-fix", f"no rewrite keeps {shown}")
    value = _expression(row.value, "value")
    _uses(row.value, needs)
    drop = sorted({given[k] for k in (*t.keywords, t.keyword) if k in given})
    args = list(node.args)
    new = cst.Arg(
        value=value,
        keyword=cst.Name(t.keyword),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    if (
        t.to is not None
    ):  # the call itself is renamed too (sdp_kernel(flags) -> sdpa_kernel(backends=...))
        node = node.with_changes(func=_expression(t.to, "new name"))
        _uses(t.to, needs)
    if not drop:
        return node.with_changes(args=_append(node, new))
    first = args[drop[0]]
    args[drop[0]] = first.with_changes(keyword=new.keyword, value=value)
    kept = [a for i, a in enumerate(args) if i not in drop[1:]]
    if (
        drop[-1] == len(args) - 1 and len(drop) > 1
    ):  # the last argument went: its comma and spacing stay last
        last = args[-1]
        kept[-1] = kept[-1].with_changes(
            comma=last.comma, whitespace_after_arg=last.whitespace_after_arg
        )
    return node.with_changes(args=kept)


def _literal_in(value: object, sources: Sequence[str]) -> bool:
    """Whether `value` is one of the literals (True is not 1 here: the types must agree)."""
    return any(type(value) is type(v) and value == v for v in map(ast.literal_eval, sources))


def _chain(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _chain(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _replace_module(
    node: cst.CSTNode, edit: Edit, needs: set[str], table: ImportTable, moves: list[Move]
) -> cst.CSTNode:
    """A site of a moved name (moves.py): its import line is to be rewritten (`moves`), or the
    site itself when it reaches the name through an import above it."""
    if table.unreadable:
        raise Refused(
            "unparsable", "a source of this file does not parse: its imports are not known"
        )
    try:
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            moves += plan_import(node, edit.transform, table)
            return node
        reference = node.func if isinstance(node, cst.Call) else node
        chain = _chain(reference)
        if chain is None:
            raise NoMove(f"{code(reference)} is not a dotted name")
        plan = plan_site(chain, edit.transform, table)
    except NoMove as exc:
        raise Refused("import-form", str(exc)) from exc
    if isinstance(plan, Move):
        moves.append(plan)
        return node
    new, module = plan
    needs.add(module)
    assert edit.transform.module is not None and edit.transform.to is not None
    moves.append(
        Move("", "", edit.transform.module, edit.transform.to, edit.transform.symbols)
    )  # `import M` left unused goes
    if isinstance(node, cst.Call):
        return node.with_changes(func=_keep_parens(node.func, _expression(new, "new name")))
    return _keep_parens(node, _expression(new, "new name"))


def _template(node: cst.CSTNode, edit: Edit, needs: set[str]) -> cst.CSTNode:
    t = edit.transform
    assert t.template is not None
    if isinstance(node, cst.AugAssign):
        if t.augmented is None:
            raise Refused("no-fix", "this fix has no form for `//=` (no `augmented` template)")
        text = _render(t.augmented, _operands(node.target, node.value), edit)
        _uses(t.augmented, needs)
        try:
            statement = cst.parse_statement(text + "\n")
        except cst.ParserSyntaxError as exc:
            raise Refused(
                "unparsable",
                f"the template does not give valid Python here: {str(exc).splitlines()[0]}",
            ) from exc
        assert isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
        return statement.body[0].with_changes(semicolon=node.semicolon)
    if isinstance(node, cst.BinaryOperation):
        values = _operands(node.left, node.right)
    else:
        assert isinstance(node, cst.Call)
        _check_positional(node, edit)
        values = _call_values(node, edit)
    new = _expression(_render(t.template, values, edit), "template")
    _uses(t.template, needs)
    return _keep_parens(node, new)


# source; whether it is atomic (needs no parentheses anywhere); the parts of the call it writes,
# each (part, plain): {args} writes every argument, {arg0} the first. A part is plain when
# evaluating it twice does what evaluating it once does (names, attributes of them, constants).
Part = tuple[str, bool]
Value = tuple[str, bool, tuple[Part, ...]]
_CONSTANTS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)


def _value(node: cst.CSTNode, part: str) -> Value:
    return (
        code(node),
        isinstance(node, _ATOMS) or bool(getattr(node, "lpar", ())),
        ((part, _plain(node)),),
    )


def _plain(node: cst.CSTNode) -> bool:
    """A name, a constant, an attribute or constant subscript of a plain value, a signed constant:
    written twice, it is still evaluated to the same thing without calling anything."""
    if isinstance(node, (cst.Name, *_CONSTANTS)):
        return True
    if isinstance(node, cst.Attribute):
        return _plain(node.value)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, _CONSTANTS)
    if isinstance(node, cst.Subscript):
        return _plain(node.value) and all(
            isinstance(e.slice, cst.Index) and _plain(e.slice.value) for e in node.slice
        )
    return False


def _operands(left: cst.CSTNode, right: cst.CSTNode) -> dict[str, Value]:
    return {"left": _value(left, "left"), "right": _value(right, "right")}


def _call_values(node: cst.Call, edit: Edit) -> dict[str, Value]:
    values: dict[str, Value] = {"func": (code(node.func), True, (("func", _plain(node.func)),))}
    if isinstance(node.func, cst.Attribute):
        values["receiver"] = _value(node.func.value, "receiver")
        name = node.func.attr.value
        values["inplace"] = (
            "_" if name.endswith("_") and not name.endswith("__") else "",
            True,
            (),
        )
    parts: list[tuple[cst.Arg, Part]] = []
    spread = False
    positional = 0
    for index, arg in enumerate(node.args):
        if arg.star:
            spread = True
            parts.append((arg, (f"spread{index}", False)))
            continue
        if arg.keyword is None and not spread:
            values[f"arg{positional}"] = _value(arg.value, f"arg{positional}")
            parts.append((arg, (f"arg{positional}", _plain(arg.value))))
            positional += 1
        elif arg.keyword is not None:
            values[f"kw:{arg.keyword.value}"] = _value(arg.value, f"kw:{arg.keyword.value}")
            parts.append((arg, (f"kw:{arg.keyword.value}", _plain(arg.value))))
        else:
            parts.append((arg, (f"positional{index}", _plain(arg.value))))
    values["args"] = (_args_text(node, list(node.args)), True, tuple(p for _, p in parts))
    named = [(a, p) for a, p in parts if a.keyword is not None or a.star == "**"]
    values["kwargs"] = (_args_text(node, [a for a, _ in named]), True, tuple(p for _, p in named))
    for arg, _ in parts:
        if arg.keyword is not None:
            rest = [(a, p) for a, p in parts if a is not arg]
            values[f"args:-{arg.keyword.value}"] = (
                _args_text(node, [a for a, _ in rest]),
                True,
                tuple(p for _, p in rest),
            )
    for name in PLACEHOLDER.findall(edit.transform.template or ""):
        if name in values:
            continue
        if name.startswith("args:-"):
            values[name] = values["args"]  # the keyword is not there to drop
        elif any(a.star == ("*" if name.startswith("arg") else "**") for a in node.args):
            kind: LeftAloneKind = "args-spread" if name.startswith("arg") else "kwargs-spread"
            raise Refused(
                kind,
                f"a {'*args' if kind == 'args-spread' else '**kwargs'} spread may hold {{{name}}}",
            )
        elif name.startswith("kw:"):
            raise Refused("missing-argument", f"the call does not give {name[3:]}=")
        elif name.startswith("arg"):
            raise Refused("missing-argument", f"the call has no positional argument {name[3:]}")
    return values


def _args_text(node: cst.Call, args: list[cst.Arg]) -> str:
    """The arguments as written, without a trailing comma or trailing blank space."""
    if not args:
        return ""
    head = code(node.whitespace_before_args)
    text = head.lstrip() if "#" in head else ""
    last = args[-1]
    tail = code(last.whitespace_after_arg)
    args[-1] = last.with_changes(
        comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace("")
    )
    text += "".join(code(a) for a in args)
    if "#" in tail or isinstance(last.comma, cst.Comma) and "#" in code(last.comma):
        text += code(last.comma) if isinstance(last.comma, cst.Comma) else tail
    return text


def _render(template: str, values: dict[str, Value], edit: Edit) -> str:
    for name, (
        text,
        _,
        _,
    ) in values.items():  # `f({args}, x=1)` on a call without arguments: `f(x=1)`
        if (name in ("args", "kwargs") or name.startswith("args:-")) and not text:
            template = re.sub(
                rf"\{{{re.escape(name)}\}}\s*,\s*|\s*,\s*\{{{re.escape(name)}\}}", "", template
            )
    written: dict[str, int] = {}
    for name in PLACEHOLDER.findall(template):
        for part, plain in values[name][2] if name in values else ():
            written[part] = written.get(part, 0) + 1
            if written[part] > 1 and not plain:
                raise Refused(
                    "double-evaluation",
                    (
                        f"the rewrite writes {{{part}}} more than once: what the call passes there "
                        "would be evaluated twice"
                    ),
                )

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise Refused("missing-argument", f"nothing at this call site fills {{{name}}}")
        text, atomic, _ = values[name]
        if atomic or name in ("args", "kwargs", "func", "inplace") or name.startswith("args:-"):
            return text
        before = template[: match.start()].rstrip()[-1:]
        after = template[match.end() :].lstrip()[:1]
        in_argument = before in ("(", ",", "=") and after in (")", ",")
        return text if in_argument else f"({text})"

    return PLACEHOLDER.sub(fill, template)


def _keep_parens(old: cst.CSTNode, new: cst.BaseExpression) -> cst.BaseExpression:
    """The new expression in the old one's parentheses; in new ones where it is not atomic."""
    lpar = list(getattr(old, "lpar", ()))
    if lpar:
        return new.with_changes(lpar=lpar, rpar=list(getattr(old, "rpar", ())))
    if not isinstance(new, _ATOMS):
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return new


_ACTIONS = {
    "set-keyword": _set_keyword,
    "rename-call": _rename_call,
    "template": _template,
    "replace-import": _replace_import,
    "replace-attribute": _replace_attribute,
    "map-keyword": _map_keyword,
}


# --- imports -----------------------------------------------------------------------------------


def bound_names(source: str) -> frozenset[str]:
    """Names a module binds at its top level (imports, definitions, assignments) or anywhere by
    import; empty when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return frozenset(names)


def _add_imports(module: cst.Module, needs: set[str], bound: frozenset[str]) -> cst.Module:
    """`import X` for each name the rewrites use that the module does not bind: placed after a
    docstring, `from __future__` imports and a notebook's magic lines."""
    have = _imported_modules(module.code)
    plain = {n for n in needs if "." not in n}
    missing = sorted(n for n in plain - bound - bound_names(module.code) - _BUILTINS if n != "_")
    missing += sorted(n for n in needs - plain if n not in have)  # a module by its dotted name
    if not missing:
        return module
    body = list(module.body)
    at = 0
    while at < len(body) and _stays_first(body[at], module):
        at += 1
    new = [cst.parse_statement(f"import {name}\n") for name in missing]
    return module.with_changes(body=[*body[:at], *new, *body[at:]])


def _imported_modules(source: str) -> set[str]:
    """The dotted modules an `import M` without `as` binds."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    return {
        a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import)
        for a in n.names
        if a.asname is None
    }


def _stays_first(statement: cst.BaseStatement, module: cst.Module) -> bool:
    text = module.code_for_node(statement)
    if MAGIC in text:
        return True
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if isinstance(small, cst.Expr) and isinstance(
        small.value, (cst.SimpleString, cst.ConcatenatedString)
    ):
        return True
    return (
        isinstance(small, cst.ImportFrom)
        and isinstance(small.module, cst.Name)
        and small.module.value == "__future__"
    )
