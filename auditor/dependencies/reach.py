"""The project's way into a dependency's affected line: which project calls reach it, and through
which of the dependency's functions.

Inside the dependency, each function's calls are resolved by what the module binds: a function of
the same module, a name imported from another module of the package (`from .a import f`), a
module's function through its alias (`checkpoint_utils.f`), or a method of the same class through
`self`/`cls`. Calls that none of these resolve (a parameter's method, a dynamic lookup) are not
followed, so a path is only ever claimed where the source names every step. In the project, a call
is matched by its dotted name as its module's imports spell it (`from fairseq import
checkpoint_utils` then `checkpoint_utils.load_model_ensemble_and_task(...)`).
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from auditor.models import Way
from auditor.scan.scanner import read_source


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
        for file in [root / only] if only else sorted(root.rglob("*.py")):
            relative = file.relative_to(root).as_posix()
            module = _module_name(relative)
            try:
                tree = ast.parse(read_source(file))
            except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
                continue
            found = _Collector(module, relative.endswith("__init__.py")).collect(tree)
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
        self.calls: dict[str, list[tuple[str, int]]] = {}
        for relative, file in files:
            try:
                tree = ast.parse(read_source(file))
            except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
                continue
            aliases = _aliases(tree, _module_name(relative), relative.endswith("__init__.py"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and (name := _dotted(node.func, aliases)) is not None:
                    self.calls.setdefault(name, []).append((relative, node.lineno))

    def ways(self, chains: Iterable[tuple[str, ...]]) -> list[Way]:
        """The project's calls of the first function of any chain, each with its chain."""
        shortest: dict[tuple[str, int], tuple[str, ...]] = {}
        for chain in chains:
            for at in self.calls.get(chain[0], ()):
                if at not in shortest or (len(chain), chain) < (len(shortest[at]), shortest[at]):
                    shortest[at] = chain
        return [Way(path, line, chain) for (path, line), chain in sorted(shortest.items())]


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


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(names)])


class _Collector:
    def __init__(self, module: str, package: bool) -> None:
        self.module, self.package = module, package
        self.found: list[_Function] = []

    def collect(self, tree: ast.Module) -> list[_Function]:
        aliases = _aliases(tree, self.module, self.package)
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
