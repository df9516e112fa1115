"""Call-site probes: evaluate a flagged expression of the project on both versions.

Only a whitelisted subset is ever evaluated: literals, torch dtypes, a few torch constructors with
such arguments, the flagged call itself (one of its change's symbols), arithmetic between them,
and names bound once, in the same function, to such expressions:

    t = torch.arange(-5, 5)
    t // 2                                   # evaluated: `t` is bound to a constructor call
    torch.tensor(300, dtype=torch.int8)      # evaluated
    torch.floor_divide(batch, 2)             # not: `batch` comes from elsewhere

The expression is rebuilt from the syntax tree (`ast.unparse`), never run from the file, and the
project's modules are never imported. A notebook's code cells are read as one module, as the
scan reads them, so a name bound in an earlier cell counts.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from auditor.models import Finding, ProbeRun, SpecChange
from auditor.scan.notebook import Joined, code_cells, join_cells

CONSTRUCTORS = frozenset({
    "torch.tensor", "torch.as_tensor", "torch.arange", "torch.zeros", "torch.ones", "torch.full",
    "torch.eye", "torch.linspace",
})
DTYPES = frozenset({
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
    "complex64", "complex128", "half", "float", "double", "short", "int", "long", "cfloat", "cdouble",
})
OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
MAX_INT = 1 << 64  # larger literals are not what these probes are about


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
        self.symbols = {s for s in symbols if s.startswith("torch.") and not s.startswith("torch.Tensor.")}
        self.methods = {s.rsplit(".", 1)[1] for s in symbols if s.startswith("torch.Tensor.") and "__" not in s}
        self.bindings = bindings
        self.used: dict[str, ast.expr] = {}
        self.visiting: set[str] = set()

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
            return isinstance(node.op, (ast.USub, ast.UAdd)) and self.allowed(node.operand, depth + 1)
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, OPERATORS) and self.allowed(node.left, depth + 1) and self.allowed(node.right, depth + 1)
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
                self.used[node.id] = bound  # after what it depends on: the probe binds in this order
            return ok
        if isinstance(node, ast.Call):
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                return False
            name = self.dotted(node.func)
            if name is not None:
                callee_ok = name in CONSTRUCTORS or name in self.symbols
            elif isinstance(node.func, ast.Attribute) and node.func.attr in self.methods:
                callee_ok = self.allowed(node.func.value, depth + 1)
            else:
                callee_ok = False
            return callee_ok and all(self.allowed(a, depth + 1) for a in arguments)
        return False


def _function_bindings(tree: ast.Module, line: int) -> dict[str, ast.expr]:
    """Names assigned exactly once in the innermost function (or module) around `line`, before it."""
    scope: ast.AST = tree
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if node.lineno <= line <= (node.end_lineno or 0) and node.lineno > getattr(scope, "lineno", 0):
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
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and node.lineno < line
    }
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _imports_torch(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Import) and any(a.name == "torch" and a.asname is None for a in node.names)
        for node in tree.body
    )


def _expression_at(tree: ast.Module, line: int, column: int, whitelist: _Whitelist) -> ast.expr | None:
    """The outermost whitelisted call or operation starting where the finding points."""
    found = [
        node for node in ast.walk(tree)
        if isinstance(node, (ast.Call, ast.BinOp)) and node.lineno == line and node.col_offset == column - 1
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


def call_sites(findings: Iterable[Finding], changes: Iterable[SpecChange], root: Path) -> list[CallSite]:
    """The findings whose flagged expression can be evaluated safely, with the probe for each."""
    symbols = {c.id: c.symbols for c in changes}
    sites = []
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
        line = finding.line if cells is None or finding.cell is None else cells.line_of(finding.cell, finding.line)
        if line is None:
            continue
        whitelist = _Whitelist(symbols[finding.change], _function_bindings(tree, line))
        node = _expression_at(tree, line, finding.column, whitelist)
        if node is None:
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
    return sites


def annotate(findings: Iterable[Finding], sites: Iterable[CallSite], runs: dict[str, tuple[ProbeRun, ProbeRun]]) -> tuple[Finding, ...]:
    """The findings, those evaluated on both versions saying what each version showed."""
    shown = {}
    for site in sites:
        if site.id in runs:
            old, new = runs[site.id]
            shown[site.finding] = f"On this line, {old.version}: {_one_line(old.output)}; {new.version}: {_one_line(new.output)}."
    return tuple(
        replace(f, message=f"{f.message} {shown[f]}".strip()) if f in shown else f for f in findings
    )


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines)[:200] if lines else "(no output)"
