"""The project's own modules, for what one file reads from another: module-level constants.

The scanner reads one file at a time. Some facts it needs live in another module of the same
project: `from lightning_lite.utilities.imports import _TORCH_GREATER_EQUAL_1_10`, where that
module says `_TORCH_GREATER_EQUAL_1_10 = compare_version("torch", operator.ge, "1.10.0")`.
`ProjectModules` answers such questions cheaply:

- `find(module, near)`: the file of a dotted module name (a sibling of the importing script
  first, as `sys.path[0]` would give it; else the one file of the project whose path ends so);
- `table(relative)`: the module-level bindings of a file (`ModuleTable`), from one parse of it,
  kept for the run;
- `constant(qualified, near)`: the expression assigned to `pkg.mod.NAME` at the top level of its
  module, following re-exports (`from .imports import NAME` in a package's `__init__`).

Only module-level statements are read (and those of top-level `if`/`try`/`with` blocks): a
name bound more than once, or other than by a plain assignment or import, is unknown.

Every lookup is noted in `consulted` as a `Dependency`: the request, the file it found and that
file's digest. The scan cache keeps them with a file's result and serves it again only while
each request still finds the same file with the same bytes (`still_valid`).

This module knows nothing of versions or findings: whole-project inference (of function
parameters from their callers in other modules) can use the same tables.
"""

from __future__ import annotations

import ast
import hashlib
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

EVERY_FILE = "*"  # the request of a lookup that read every file of the project (`names`)
_MAX_HOPS = 8  # re-exports followed before a name is left unknown
_AMBIGUOUS = object()  # a name bound more than once, or not by a plain assignment
_TRIES: tuple[type[ast.stmt], ...] = tuple(
    getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name)
)


@dataclass(frozen=True)
class Dependency:
    """A module lookup one file's result rests on: `request` ("near|dotted.name") found
    `relative` (None: no file) whose bytes had `digest` (None: unreadable or absent)."""

    request: str
    relative: str | None
    digest: str | None


@dataclass(frozen=True)
class Constant:
    """An expression assigned at the top level of a module, with that module's bindings (to read
    the names the expression uses)."""

    value: ast.expr
    table: ModuleTable


@dataclass
class ModuleTable:
    """What a module binds at its top level: names assigned one expression, names imported
    (as qualified names; relative imports resolved against `package`)."""

    relative: str | None  # the file, None for a file read from elsewhere (a notebook's cells)
    package: str  # the dotted package the module is in ("" at the top)
    assigned: dict[str, ast.expr] = field(default_factory=dict)
    imported: dict[str, str] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, tree: ast.Module, relative: str | None, source: str = "") -> ModuleTable:
        table = cls(relative, package_of(relative))
        seen: dict[str, object] = {}
        table._read(tree.body, seen)
        for name, value in seen.items():
            if value is _AMBIGUOUS:
                table.ambiguous.add(name)
            elif isinstance(value, str):
                table.imported[name] = value
            else:
                assert isinstance(value, ast.expr)
                table.assigned[name] = value
        for name in _global_names(source):  # `global X` in a function rebinds it
            table.assigned.pop(name, None)
            table.imported.pop(name, None)
            table.ambiguous.add(name)
        return table

    def _bind(self, seen: dict[str, object], name: str, value: object) -> None:
        seen[name] = _AMBIGUOUS if name in seen else value

    def _read(self, statements: Iterable[ast.stmt], seen: dict[str, object]) -> None:
        for statement in statements:
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        self._bind(
                            seen,
                            target.id,
                            statement.value if len(statement.targets) == 1 else _AMBIGUOUS,
                        )
                    else:
                        for node in ast.walk(target):
                            if isinstance(node, ast.Name):
                                self._bind(seen, node.id, _AMBIGUOUS)
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                if statement.value is not None:
                    self._bind(seen, statement.target.id, statement.value)
            elif isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        self._bind(seen, alias.asname, alias.name)
                    else:
                        top = alias.name.split(".")[0]
                        self._bind(seen, top, top)
            elif isinstance(statement, ast.ImportFrom):
                module = self.absolute(statement.module, statement.level)
                for alias in statement.names:
                    if alias.name != "*":
                        name = alias.asname or alias.name
                        self._bind(seen, name, f"{module}.{alias.name}" if module else _AMBIGUOUS)
            elif isinstance(statement, ast.If):
                self._read(statement.body, seen)
                self._read(statement.orelse, seen)
            elif isinstance(statement, _TRIES):
                tried: ast.Try = statement  # type: ignore[assignment]  # TryStar has the same fields
                self._read([*tried.body, *tried.orelse, *tried.finalbody], seen)
                for handler in tried.handlers:
                    if handler.name:
                        self._bind(seen, handler.name, _AMBIGUOUS)
                    self._read(handler.body, seen)
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                for item in statement.items:
                    if item.optional_vars is not None:
                        for node in ast.walk(item.optional_vars):
                            if isinstance(node, ast.Name):
                                self._bind(seen, node.id, _AMBIGUOUS)
                self._read(statement.body, seen)
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._bind(seen, statement.name, _AMBIGUOUS)
            elif isinstance(
                statement, (ast.AugAssign, ast.For, ast.AsyncFor, ast.While, ast.Delete, ast.Match)
            ):
                for node in ast.walk(statement):
                    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                        self._bind(seen, node.id, _AMBIGUOUS)

    def absolute(self, module: str | None, level: int) -> str | None:
        """The absolute name of `from <dots><module> import ...` in this module."""
        return absolute(self.package, module, level)


def absolute(package: str, module: str | None, level: int) -> str | None:
    """The absolute name of `from <dots><module> import ...` in a module of `package` (None
    when the dots climb above the scanned folder)."""
    if not level:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    name = ".".join([*base, *([module] if module else [])])
    return name or None


def package_of(relative: str | None) -> str:
    """The dotted package of the module at `relative` (a path from the scanned folder)."""
    if not relative:
        return ""
    parts = relative.split("/")[:-1]
    return ".".join(parts)


_GLOBAL = re.compile(r"^[ \t]+global[ \t]+([\w, \t]+)", re.MULTILINE)


def _global_names(source: str) -> set[str]:
    if "global" not in source:
        return set()
    return {
        name.strip() for match in _GLOBAL.finditer(source) for name in match.group(1).split(",")
    }


class ProjectModules:
    """The modules of one scanned folder: `base` and the relative paths of its Python files."""

    def __init__(self, base: Path, relatives: Iterable[str]):
        self.base = base
        self.relatives = tuple(r for r in relatives if r.endswith(".py"))
        self._present = frozenset(self.relatives)
        self._suffixes: dict[str, list[str]] | None = None
        self._tables: dict[str, ModuleTable | None] = {}
        self._digests: dict[str, str | None] = {}
        self._texts: dict[str, str] = {}  # of the files searched by `names`, kept for the run
        self.consulted: dict[str, Dependency] = {}  # of the file being scanned; see `take`

    def take(self) -> tuple[Dependency, ...]:
        """The lookups made since the last call (for one file's result)."""
        found = tuple(self.consulted.values())
        self.consulted = {}
        return found

    def _index(self) -> dict[str, list[str]]:
        if self._suffixes is None:
            self._suffixes = {}
            for relative in self.relatives:
                parts = relative[:-3].split("/")
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                for start in range(len(parts)):
                    self._suffixes.setdefault(".".join(parts[start:]), []).append(relative)
        return self._suffixes

    def find(self, module: str, near: str = "") -> str | None:
        """The file of `module`: beside the importing file (`near`, its folder) first, else the
        one file of the project whose path ends with the module's; None when none or several."""
        request = f"{near}|{module}"
        known = self.consulted.get(request)
        if known is not None:
            return known.relative
        found = self.locate(module, near)
        self.consulted[request] = Dependency(request, found, self.digest(found) if found else None)
        return found

    def locate(self, module: str, near: str = "") -> str | None:
        """`find`, without noting the lookup as a dependency of the file being scanned."""
        path = module.replace(".", "/")
        found: str | None = None
        places = [f"{near}/{path}", path] if near else [path]
        for candidate in (f"{place}{end}" for place in places for end in (".py", "/__init__.py")):
            if candidate in self._present:
                found = candidate
                break
        if found is None:
            matches = self._index().get(module, [])
            found = matches[0] if len(matches) == 1 else None
        return found

    def digest(self, relative: str) -> str | None:
        if relative not in self._digests:
            try:
                self._digests[relative] = hashlib.blake2b(
                    (self.base / relative).read_bytes(), digest_size=16
                ).hexdigest()
            except OSError:
                self._digests[relative] = None
        return self._digests[relative]

    def names(self, name: str, apart_from: str) -> bool:
        """Whether a Python file of the project other than `apart_from` holds `name` as a word.
        The answer rests on every file, those to come too: a result that asked is not served
        from the cache again (`EVERY_FILE`)."""
        self.consulted[EVERY_FILE] = Dependency(EVERY_FILE, None, None)
        word = re.compile(rf"\b{re.escape(name)}\b")
        for relative in self.relatives:
            if relative == apart_from:
                continue
            if relative not in self._texts:
                try:
                    self._texts[relative] = (self.base / relative).read_text(
                        "utf-8", errors="replace"
                    )
                except OSError:
                    self._texts[relative] = ""
            if word.search(self._texts[relative]):
                return True
        return False

    def still_valid(self, dependencies: Iterable[Dependency]) -> bool:
        """Whether each lookup would find the same file with the same bytes today."""
        for dependency in dependencies:
            if dependency.request == EVERY_FILE:
                return False
            near, _, module = dependency.request.partition("|")
            saved, self.consulted = self.consulted, {}
            try:
                found = self.find(module, near)
            finally:
                self.consulted = saved
            if found != dependency.relative or (
                found is not None and self.digest(found) != dependency.digest
            ):
                return False
        return True

    def table(self, relative: str) -> ModuleTable | None:
        """The top-level bindings of the file at `relative`, parsed once; None if it does not parse."""
        if relative not in self._tables:
            table = None
            try:
                source = (self.base / relative).read_text("utf-8-sig")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SyntaxWarning)
                    table = ModuleTable.of(ast.parse(source, filename=relative), relative, source)
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
                pass
            self._tables[relative] = table
        return self._tables[relative]

    def constant(self, qualified: str, near: str = "") -> Constant | None:
        """The expression `pkg.mod.NAME` is assigned at the top level of its module (a file of
        this project), following re-exports; None when it is not one such expression."""
        for _ in range(_MAX_HOPS):
            module, _, name = qualified.rpartition(".")
            if not module:
                return None
            relative = self.find(module, near)
            if relative is None:
                return None
            table = self.table(relative)
            if table is None or name in table.ambiguous:
                return None
            if name in table.assigned:
                return Constant(table.assigned[name], table)
            if name not in table.imported:
                return None
            qualified, near = table.imported[name], relative.rpartition("/")[0]
        return None
