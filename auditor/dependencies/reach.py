"""The project's way into a dependency's affected line: which project calls reach it, and through
which of the dependency's functions.

Inside the dependency, each function's calls are resolved by what the module binds: a function of
the same module, a name imported from another module of the package (`from .a import f`), a
module's function through its alias (`checkpoint_utils.f`), or a method of the same class through
`self`/`cls`. Calls that none of these resolve (a parameter's method, a dynamic lookup) are not
followed, so a path is only ever claimed where the source names every step. In the project (its
scripts and its notebooks' code cells), a call is matched by its dotted name as its module's imports
spell it (`from fairseq import checkpoint_utils` then `checkpoint_utils.load_model_ensemble_and_task(...)`),
also through a name the package's own imports give the function (`from .trainer import Trainer` in
its `__init__.py`), and on an instance the module binds once (`trainer = Trainer(...)` then
`trainer.train()`, or `Trainer(...).train()`). Calling a class reaches its `__init__`.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from auditor.models import Way
from auditor.scan.notebook import NotebookError, code_cells, join_cells
from auditor.scan.scanner import read_source

_NAMES = 16  # the most names followed for one function through the package's imports


@dataclass
class _Function:
    name: str  # dotted: package.module.Class.method
    start: int
    end: int
    calls: set[str]


class Package:
    """The functions of an unpacked package and whom each calls."""

    def __init__(self, root: Path, only: str | None = None) -> None:
        """`only`: read just this file of the package (relative to `root`)."""
        self.functions: dict[str, _Function] = {}
        self.by_file: dict[str, list[_Function]] = {}
        self.imported: dict[str, list[str]] = {}  # a dotted name -> the module names bound to it
        for file in [root / only] if only else sorted(root.rglob("*.py")):
            relative = file.relative_to(root).as_posix()
            module = _module_name(relative)
            try:
                tree = ast.parse(read_source(file))
            except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
                continue
            aliases = _aliases(tree, module, relative.endswith("__init__.py"))
            for local, target in aliases.items():
                self.imported.setdefault(target, []).append(f"{module}.{local}")
            found = _Collector(module).collect(tree, aliases)
            self.by_file[relative] = found
            self.functions.update((f.name, f) for f in found)
        self.callers: dict[str, set[str]] = {}
        for function in self.functions.values():
            for callee in function.calls:
                if callee in self.functions:
                    self.callers.setdefault(callee, set()).add(function.name)

    def holding(self, path: str, line: int) -> str | None:
        """The innermost function whose lines hold `line` of `path`."""
        inside = [f for f in self.by_file.get(path, ()) if f.start <= line <= f.end]
        return min(inside, key=lambda f: f.end - f.start).name if inside else None

    def names(self, function: str) -> tuple[str, ...]:
        """The other names the package's own imports give `function` (or a class or module that
        holds it): `pkg.Trainer.train` for `pkg.trainer.Trainer.train` where `pkg/__init__.py`
        imports `Trainer` from `.trainer`; at most `_NAMES`, nearest first."""
        seen = {function: None}
        queue = deque([function])
        while queue and len(seen) <= _NAMES:
            name = queue.popleft()
            parts = name.split(".")
            for cut in range(len(parts), 0, -1):
                head, rest = ".".join(parts[:cut]), parts[cut:]
                for alias in sorted(self.imported.get(head, ())):
                    other = ".".join([alias, *rest])
                    if other not in seen:
                        seen[other] = None
                        queue.append(other)
        return tuple(seen)[1 : _NAMES + 1]

    def reaching(self, target: str) -> dict[str, tuple[str, ...]]:
        """Every function from which `target` is reached, with the chain of calls to it."""
        chains: dict[str, tuple[str, ...]] = {target: (target,)}
        queue = deque([target])
        while queue:
            current = queue.popleft()
            for caller in sorted(self.callers.get(current, ())):
                if caller not in chains:
                    chains[caller] = (caller, *chains[current])
                    queue.append(caller)
        return chains


class ProjectCalls:
    """Every call of the project's files by the dotted name its module's imports give it."""

    def __init__(self, files: Iterable[tuple[str, Path]]) -> None:
        self.calls: dict[str, list[tuple[str, int, int | None]]] = {}
        for relative, file in files:
            try:
                text = read_source(file)
                if relative.endswith(".ipynb"):
                    joined = join_cells(code_cells(text))
                    text, origin = joined.source, joined.origin
                else:
                    origin = None
                tree = ast.parse(text)
            except (SyntaxError, ValueError, UnicodeDecodeError, OSError, NotebookError):
                continue
            aliases = _aliases(tree, _module_name(relative), relative.endswith("__init__.py"))
            instances = _instances(tree, aliases)
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                name = _dotted(node.func, aliases, instances)
                if name is None:
                    continue
                cell, line = origin[node.lineno - 1] if origin else (None, node.lineno)
                for called in (name, f"{name}.__init__"):
                    self.calls.setdefault(called, []).append((relative, line, cell))

    def ways(
        self, chains: Iterable[tuple[str, ...]], names: Mapping[str, Sequence[str]]
    ) -> list[Way]:
        """The project's calls of the first function of any chain, by its own name or one of its
        `names` (the package's imports of it), each with its chain."""
        shortest: dict[tuple[str, int, int | None], tuple[str, ...]] = {}
        for chain in chains:
            for name in (chain[0], *names.get(chain[0], ())):
                for at in self.calls.get(name, ()):
                    if at not in shortest or (len(chain), chain) < (
                        len(shortest[at]),
                        shortest[at],
                    ):
                        shortest[at] = chain
        return [
            Way(path, line, chain, cell)
            for (path, line, cell), chain in sorted(
                shortest.items(), key=lambda item: (item[0][0], item[0][2] or 0, item[0][1])
            )
        ]


def _instances(tree: ast.Module, aliases: dict[str, str]) -> dict[str, str]:
    """Names the module binds once, to a call of a name its imports give (`t = Trainer(...)`,
    `with Trainer(...) as t`), each to that name: `t.train()` is then `Trainer.train`."""
    bound: dict[str, int] = {}
    made: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            bound[node.arg] = bound.get(node.arg, 0) + 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] = bound.get(node.name, 0) + 1
        target, value = _binding(node)
        if (
            target is not None
            and isinstance(value, ast.Call)
            and (called := _dotted(value.func, aliases, {})) is not None
        ):
            made[target] = called
    return {name: called for name, called in made.items() if bound.get(name) == 1}


def _binding(node: ast.AST) -> tuple[str | None, ast.expr | None]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (target.id, node.value) if isinstance(target, ast.Name) else (None, None)
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    if isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
        return node.optional_vars.id, node.context_expr
    return None, None


def _module_name(relative: str) -> str:
    parts = relative.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _aliases(tree: ast.Module, module: str, package: bool) -> dict[str, str]:
    """Top-level names bound by imports, each to the dotted name it stands for."""
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    out[alias.asname] = alias.name
                else:
                    out[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, package)
            for alias in node.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return out


def _absolute(node: ast.ImportFrom, module: str, package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".") if package else module.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*parts, node.module] if node.module else parts)


def _dotted(
    node: ast.expr, aliases: dict[str, str], instances: Mapping[str, str] | None = None
) -> str | None:
    """The dotted name `node` stands for: an imported name and its attributes, or an instance's
    (one of `instances`, or a call made in place: `Trainer(...).train`)."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call) and names and instances is not None:
        made = _dotted(node.func, aliases)
        return None if made is None else ".".join([made, *reversed(names)])
    if not isinstance(node, ast.Name):
        return None
    if node.id in aliases:
        return ".".join([aliases[node.id], *reversed(names)])
    if instances and node.id in instances and names:
        return ".".join([instances[node.id], *reversed(names)])
    return None


class _Collector:
    def __init__(self, module: str) -> None:
        self.module = module
        self.found: list[_Function] = []

    def collect(self, tree: ast.Module, aliases: dict[str, str]) -> list[_Function]:
        local = {
            n.name
            for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        }
        scope = {**aliases, **{name: f"{self.module}.{name}" for name in local}}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function(node, f"{self.module}.{node.name}", scope, None)
            elif isinstance(node, ast.ClassDef):
                owner = f"{self.module}.{node.name}"
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._function(item, f"{owner}.{item.name}", scope, owner)
        return self.found

    def _function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        name: str,
        scope: dict[str, str],
        owner: str | None,
    ) -> None:
        calls = set()
        for inner in ast.walk(node):
            if not isinstance(inner, ast.Call):
                continue
            func = inner.func
            if (
                owner is not None
                and isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls")
            ):
                calls.add(f"{owner}.{func.attr}")
            elif (dotted := _dotted(func, scope)) is not None:
                calls.add(dotted)
        self.found.append(_Function(name, node.lineno, node.end_lineno or node.lineno, calls))
