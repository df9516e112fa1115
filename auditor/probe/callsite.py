"""Call-site probes: evaluate a flagged expression of the project on both versions.

Only a whitelisted subset is ever evaluated: literals, torch dtypes, a few torch constructors with
such arguments, the flagged call itself (one of its change's symbols), arithmetic between them,
and names bound once, in the same function, to such expressions:

    t = torch.arange(-5, 5)
    t // 2                                   # evaluated: `t` is bound to a constructor call
    torch.tensor(300, dtype=torch.int8)      # evaluated
    torch.floor_divide(batch, 2)             # not: `batch` comes from elsewhere

The expression is rebuilt from the syntax tree (`ast.unparse`), never run from the file, and the
project's modules are never imported. A hostile source must not make a probe hang or fill the
memory either: the literal arithmetic of an expression is computed here first, within bounds
(integers of at most `MAX_BITS` bits, sequences and strings of at most `MAX_ITEMS` items, no
string formatting), and a tensor constructor may make at most `MAX_ITEMS` elements. A site past
a bound (`2**10**10`, `[0] * 10**9`, `torch.zeros(10**5, 10**5)`) is left unprobed, with the
reason. A notebook's code cells are read as one module, as the
scan reads them, so a name bound in an earlier cell counts.
"""

from __future__ import annotations

import ast
import hashlib
import operator
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from auditor.knowledge.entry import SpecChange
from auditor.models import Finding, ProbeRun
from auditor.scan.notebook import Joined, code_cells, join_cells

CONSTRUCTORS = frozenset(
    {
        "torch.tensor",
        "torch.as_tensor",
        "torch.arange",
        "torch.zeros",
        "torch.ones",
        "torch.full",
        "torch.eye",
        "torch.linspace",
    }
)
DTYPES = frozenset(
    {
        "bool",
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "half",
        "float",
        "double",
        "short",
        "int",
        "long",
        "cfloat",
        "cdouble",
    }
)
OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
MAX_INT = 1 << 64  # larger literals are not what these probes are about
MAX_BITS = 4096  # of an integer the literal arithmetic makes
MAX_ITEMS = 1 << 20  # items of a sequence or string, elements of a tensor a constructor makes
# How a call that makes a tensor says its size: every int argument (a shape), the first argument
# only (`full(shape, value)`), a range (start, end, step), or a number of steps.
SIZES = {
    "torch.zeros": "shape",
    "torch.ones": "shape",
    "torch.empty": "shape",
    "torch.rand": "shape",
    "torch.randn": "shape",
    "torch.eye": "shape",
    "torch.full": "first",
    "torch.arange": "range",
    "torch.range": "range",
    "torch.linspace": "steps",
    "torch.logspace": "steps",
}


class TooBig(Exception):
    """What a literal expression would make is past the bounds: the site is not probed."""


class _Unknown(Exception):
    """The value depends on a tensor or a call: not computed here."""


@dataclass(frozen=True, slots=True)
class CallSite:
    finding: Finding
    code: str  # the probe: bindings, then the expression printed or its exception

    @property
    def id(self) -> str:
        digest = hashlib.sha256(self.code.encode("utf-8")).hexdigest()[:12]
        return f"site:{self.finding.path}:{self.finding.line}:{self.finding.column}:{digest}"


class _Whitelist:
    def __init__(self, symbols: Iterable[str], bindings: dict[str, ast.expr]):
        self.symbols = {
            s for s in symbols if s.startswith("torch.") and not s.startswith("torch.Tensor.")
        }
        self.methods = {
            s.rsplit(".", 1)[1] for s in symbols if s.startswith("torch.Tensor.") and "__" not in s
        }
        self.bindings = bindings
        self.used: dict[str, ast.expr] = {}
        self.visiting: set[str] = set()
        self.refused: str | None = None  # why an expression past the bounds was not taken
        self.values: dict[str, object] = {}  # the bound names' literal values, once computed

    def bounded(self, node: ast.expr) -> bool:
        """Whether what `node` makes stays within the bounds; records why not."""
        try:
            if isinstance(node, ast.Call):
                self._check_size(node)
            else:
                self.value(node)
        except TooBig as exc:
            self.refused = str(exc)
            return False
        except _Unknown:
            pass
        return True

    def value(self, node: ast.expr, depth: int = 0) -> object:
        """The value of literal arithmetic, computed only where it stays within the bounds."""
        if depth > 24:
            raise _Unknown
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.bindings and node.id not in self.visiting:
            if (
                node.id not in self.values
            ):  # once per name: `b = a * a; c = b * b; ...` stays linear
                self.visiting.add(node.id)
                try:
                    self.values[node.id] = self._side(self.bindings[node.id], depth)
                finally:
                    self.visiting.discard(node.id)
            if self.values[node.id] is _UNKNOWN:
                raise _Unknown
            return self.values[node.id]
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e, depth + 1) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.value(node.operand, depth + 1)
            if not isinstance(operand, (int, float)):
                raise _Unknown
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            return _operate(node.op, self._side(node.left, depth), self._side(node.right, depth))
        raise _Unknown

    def _side(self, node: ast.expr, depth: int) -> object:
        try:
            return self.value(node, depth + 1)
        except _Unknown:
            return _UNKNOWN

    def _check_size(self, call: ast.Call) -> None:
        name = self.dotted(call.func)
        how = SIZES.get(name or "")
        if how is None:
            return
        args = {k.arg: k.value for k in call.keywords if k.arg}
        positional = list(call.args)

        def known(node: ast.expr | None, default: object = None) -> object:
            if node is None:
                return default
            try:
                return self.value(node)
            except _Unknown:
                raise TooBig(f"{name}'s size is not a literal") from None

        count: object = 1
        if how == "range":
            values = [known(n) for n in positional[:3]]
            start, end, step = {
                0: (0, 0, 1),
                1: (0, *values, 1),
                2: (*values, 1),
                3: tuple(values),
            }[len(values)]
            start, end, step = (
                known(args.get("start"), start),
                known(args.get("end"), end),
                known(args.get("step"), step),
            )
            try:
                count = abs((end - start) / step)  # type: ignore[operator]
            except (ArithmeticError, TypeError):  # OverflowError: far too many
                count = float("inf") if isinstance(end, int) and isinstance(start, int) else 1
        elif how == "steps":
            count = known(positional[2] if len(positional) > 2 else args.get("steps"), 1)
        else:
            shape = positional[:1] if how == "first" else positional
            for dimension in _flat([known(n) for n in shape] + [known(args.get("size"), ())]):
                if isinstance(dimension, int):
                    count = max(dimension, 0) * count  # type: ignore[operator]
        if not isinstance(count, (int, float)):
            return
        if count > MAX_ITEMS:
            raise TooBig(f"{name} would make {count:.3g} elements (at most {MAX_ITEMS} are probed)")

    def dotted(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return node.id if node.id == "torch" else None
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def allowed(self, node: ast.expr, depth: int = 0) -> bool:
        if depth > 12:
            return False
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or value is None:
                return True
            if isinstance(value, int):
                return abs(value) < MAX_INT
            return isinstance(value, float) or (isinstance(value, str) and len(value) <= 32)
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, (ast.USub, ast.UAdd)) and self.allowed(
                node.operand, depth + 1
            )
        if isinstance(node, ast.BinOp):
            return (
                isinstance(node.op, OPERATORS)
                and self.allowed(node.left, depth + 1)
                and self.allowed(node.right, depth + 1)
                and self.bounded(node)
            )
        if isinstance(node, (ast.List, ast.Tuple)):
            return len(node.elts) <= 64 and all(self.allowed(e, depth + 1) for e in node.elts)
        if isinstance(node, ast.Attribute):
            name = self.dotted(node)
            return name is not None and name.startswith("torch.") and name[6:] in DTYPES
        if isinstance(node, ast.Name):
            if node.id in self.used:
                return True
            bound = self.bindings.get(node.id)
            if bound is None or node.id in self.visiting:  # unbound, or defined through itself
                return False
            self.visiting.add(node.id)
            ok = self.allowed(bound, depth + 1)
            self.visiting.discard(node.id)
            if ok:
                self.used[node.id] = (
                    bound  # after what it depends on: the probe binds in this order
                )
            return ok
        if isinstance(node, ast.Call):
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords
            ):
                return False
            name = self.dotted(node.func)
            if name is not None:
                callee_ok = name in CONSTRUCTORS or name in self.symbols
            elif isinstance(node.func, ast.Attribute) and node.func.attr in self.methods:
                callee_ok = self.allowed(node.func.value, depth + 1)
            else:
                callee_ok = False
            return (
                callee_ok
                and all(self.allowed(a, depth + 1) for a in arguments)
                and self.bounded(node)
            )
        return False


_UNKNOWN = object()


def _flat(values: Iterable[object]) -> Iterable[object]:
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from _flat(value)
        else:
            yield value


def _operate(op: ast.operator, left: object, right: object) -> object:
    """`left op right` when both are known and the result stays within the bounds; raises
    TooBig past them, _Unknown when a side is a tensor or the operation fails (the probe will
    show that failure itself, quickly)."""
    sequences = (str, bytes, list, tuple)
    if isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        raise TooBig("string formatting is not probed")
    if isinstance(op, ast.Mult) and (isinstance(left, sequences) or isinstance(right, sequences)):
        sequence, times = (left, right) if isinstance(left, sequences) else (right, left)
        if times is _UNKNOWN:
            raise TooBig("a sequence repeated a number of times not known here is not probed")
        if isinstance(times, int) and _items(sequence, {}) * max(times, 0) > MAX_ITEMS:
            raise TooBig(
                f"a sequence of {_items(sequence, {}) * times:.3g} items (at most {MAX_ITEMS} are probed)"
            )
    if left is _UNKNOWN or right is _UNKNOWN:
        raise _Unknown
    if isinstance(left, int) and isinstance(right, int) and not isinstance(left, bool):
        if isinstance(op, ast.Pow) and right > 0 and max(left.bit_length(), 1) * right > MAX_BITS:
            raise TooBig(
                f"an integer power of about {max(left.bit_length(), 1) * right:.3g} bits (at most {MAX_BITS} are probed)"
            )
        if isinstance(op, ast.Mult) and left.bit_length() + right.bit_length() > MAX_BITS:
            raise TooBig(f"an integer product of more than {MAX_BITS} bits is not probed")
    if (
        isinstance(op, ast.Add)
        and isinstance(left, sequences)
        and isinstance(right, sequences)
        and _items(left, {}) + _items(right, {}) > MAX_ITEMS
    ):
        raise TooBig(f"a sequence of more than {MAX_ITEMS} items is not probed")
    try:
        return _APPLY[type(op)](left, right)
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise _Unknown from exc


def _items(value: object, seen: dict[int, int]) -> int:
    """The items `value` holds, nested lists counted in full (a tensor made of `[[0] * 1000] *
    1000` has a million elements), each shared list counted once per place but walked once."""
    if isinstance(value, (str, bytes)):
        return len(value)
    if not isinstance(value, (list, tuple)):
        return 1
    if id(value) not in seen:
        seen[id(value)] = sum(_items(item, seen) for item in value) or 1
    return seen[id(value)]


_APPLY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def _function_bindings(tree: ast.Module, line: int) -> dict[str, ast.expr]:
    """Names assigned exactly once in the innermost function (or module) around `line`, before it."""
    scope: ast.AST = tree
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if node.lineno <= line <= (node.end_lineno or 0) and node.lineno > getattr(
            scope, "lineno", 0
        ):
            scope = node  # the innermost: it starts after every other function around the line
    # every store counts, nested scopes' included: a name bound twice anywhere is not trusted
    counts: dict[str, int] = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            counts[node.arg] = counts.get(node.arg, 0) + 2  # a parameter is never a literal
    values = {
        node.targets[0].id: node.value
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.lineno < line
    }
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _imports_torch(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Import)
        and any(a.name == "torch" and a.asname is None for a in node.names)
        for node in tree.body
    )


def _expression_at(
    tree: ast.Module, line: int, column: int, whitelist: _Whitelist
) -> ast.expr | None:
    """The outermost whitelisted call or operation starting where the finding points (None, with
    `whitelist.refused` set, when one was refused for its size)."""
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.Call, ast.BinOp))
        and node.lineno == line
        and node.col_offset == column - 1
    ]
    found.sort(key=lambda n: ((n.end_lineno or 0), (n.end_col_offset or 0)), reverse=True)
    for node in found:
        whitelist.used.clear()
        if whitelist.allowed(node):
            return node
    return None


def _module(path: Path) -> tuple[ast.Module, Joined | None] | None:
    """The syntax tree of a module, or of a notebook's cells read as one (with their lines)."""
    try:
        text = path.read_text("utf-8-sig")
        if path.suffix == ".ipynb":
            cells = join_cells(code_cells(text))
            return ast.parse(cells.source), cells
        if path.suffix == ".py":
            return ast.parse(text), None
    except (OSError, SyntaxError, ValueError, RecursionError):  # NotebookError is a ValueError
        pass
    return None


def call_sites(
    findings: Iterable[Finding], changes: Iterable[SpecChange], root: Path
) -> list[CallSite]:
    """The findings whose flagged expression can be evaluated safely, with the probe for each."""
    return find_sites(findings, changes, root)[0]


def find_sites(
    findings: Iterable[Finding], changes: Iterable[SpecChange], root: Path
) -> tuple[list[CallSite], list[str]]:
    """`call_sites`, and a note for each site left unprobed because of what it would compute."""
    symbols = {c.id: c.symbols for c in changes}
    sites = []
    refused: list[str] = []
    modules: dict[str, tuple[ast.Module, Joined | None] | None] = {}
    for finding in findings:
        if finding.change not in symbols:
            continue
        if finding.path not in modules:
            modules[finding.path] = _module(root / finding.path)
        module = modules[finding.path]
        if module is None or not _imports_torch(module[0]):
            continue
        tree, cells = module
        line = (
            finding.line
            if cells is None or finding.cell is None
            else cells.line_of(finding.cell, finding.line)
        )
        if line is None:
            continue
        whitelist = _Whitelist(symbols[finding.change], _function_bindings(tree, line))
        node = _expression_at(tree, line, finding.column, whitelist)
        if node is None:
            if whitelist.refused:
                where = f"{finding.path}" + (f"[cell {finding.cell}]" if finding.cell else "")
                refused.append(
                    f"{where}:{finding.line}: not evaluated on either version: {whitelist.refused}"
                )
            continue
        lines = ["import torch"]
        lines += [f"{name} = {ast.unparse(value)}" for name, value in whitelist.used.items()]
        lines += [
            "try:",
            f"    print(repr({ast.unparse(node)}))",
            "except Exception as exc:",
            "    print(type(exc).__name__ + ': ' + (str(exc).strip().splitlines() or [''])[0])",
        ]
        sites.append(CallSite(finding, "\n".join(lines)))
    return sites, list(dict.fromkeys(refused))


def annotate(
    findings: Iterable[Finding],
    sites: Iterable[CallSite],
    runs: dict[str, tuple[ProbeRun, ProbeRun]],
) -> tuple[Finding, ...]:
    """The findings, those evaluated on both versions saying what each version showed."""
    shown = {}
    for site in sites:
        if site.id in runs:
            old, new = runs[site.id]
            shown[site.finding] = (
                f"On this line, {old.version}: {_one_line(old.output)}; {new.version}: {_one_line(new.output)}."
            )
    return tuple(
        replace(f, message=f"{f.message} {shown[f]}".strip()) if f in shown else f for f in findings
    )


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines)[:200] if lines else "(no output)"
