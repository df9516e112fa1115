"""The package's layers: no import circle between modules, no import from a lower layer to a
higher one, and short modules under `auditor/cli/`.

Every import counts: at the top of a module, inside a function, under `TYPE_CHECKING`.
`docs/architecture.md` quotes LAYERS; a test checks it names the same layers in the same order.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "auditor"

# bottom to top: a module may import from its own layer and the layers below it
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("auditor", "auditor.astnames", "auditor.cachefiles", "auditor.errors", "auditor.progress",
                    "auditor.pythons", "auditor.tomlread")),
    ("models", ("auditor.models", "auditor.knowledge.entry", "auditor.fix.spec", "auditor.findings",
                "auditor.suggestion")),
    ("locks", ("auditor.lockfiles", "auditor.locklayout", "auditor.importers", "auditor.gitrange")),
    ("harvest", ("auditor.harvest",)),
    ("knowledge", ("auditor.knowledge",)),
    ("scan", ("auditor.scan",)),
    ("dependencies", ("auditor.dependencies",)),
    ("probe", ("auditor.probe",)),
    ("fix", ("auditor.fix",)),
    ("pipeline", ("auditor.pipeline", "auditor.requests")),
    ("report", ("auditor.report", "auditor.plan")),
    ("github", ("auditor.github",)),
    ("cli", ("auditor.cli", "auditor.settings", "auditor.__main__")),
)
CLI_MAX_LINES = 300


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    """The index in LAYERS of the longest name that is the module or a package holding it (the
    top package, `auditor`, holds only its own `__init__`)."""
    best, found = "", -1
    for index, (_, names) in enumerate(LAYERS):
        for name in names:
            holds = module == name or ("." in name and module.startswith(name + "."))
            if holds and len(name) > len(best):
                best, found = name, index
    return found


def imports(module: str, path: Path) -> dict[str, int]:
    """The package's modules that `module`, read from `path`, imports anywhere in it, with the
    first line of each."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        if name in MODULES and name != module:
            found.setdefault(name, line)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:  # `from auditor.scan import syntax` imports the module syntax
                submodule = f"{source}.{alias.name}"
                add(submodule if submodule in MODULES else source, node.lineno)
    return found


GRAPH = {module: imports(module, path) for module, path in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if layer_of(m) < 0] == []


def test_no_import_climbs_to_a_higher_layer() -> None:
    climbs = [
        f"{MODULES[m].relative_to(ROOT)}:{line}: {m} ({LAYERS[layer_of(m)][0]}) imports {target} "
        f"({LAYERS[layer_of(target)][0]})"
        for m, targets in GRAPH.items()
        for target, line in targets.items()
        if layer_of(target) > layer_of(m)
    ]
    assert climbs == []


def circles() -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_import_circle() -> None:
    assert circles() == []


def test_importing_a_module_runs_no_higher_package_init() -> None:
    """Importing a module runs the `__init__` of each package holding it: what those import stays
    at or below the module's layer (importing an entry type runs no knowledge engine)."""
    climbs = [
        f"{m} ({LAYERS[layer_of(m)][0]}) runs {package}, which imports {target} ({LAYERS[layer_of(target)][0]})"
        for m in MODULES
        for package in (m.rsplit(".", n)[0] for n in range(1, m.count(".")))
        for target in GRAPH[package]
        if layer_of(target) > layer_of(m)
    ]
    assert climbs == []


# the knowledge entry types and an entry's `[fix]` section, each name with its owner's module
OWNED = {
    "auditor.knowledge.entry": ("KINDS", "HAZARD_OF_KIND", "CONSEQUENCE_OF_KIND", "Condition", "Match", "Harvested",
                                "Docs", "Probe", "Crossed", "Unloaded", "SpecChange"),
    "auditor.fix.spec": ("FixMode", "FIX_MODES", "Action", "ACTIONS", "CALL_SHAPE_FIELDS", "Transform",
                         "KeywordRow", "Fix"),
}


def top_level_names(module: str) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(MODULES[module].read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def test_entry_and_fix_types_live_with_their_owners() -> None:
    models = top_level_names("auditor.models")
    misplaced = {home: sorted(set(names) - top_level_names(home) | set(names) & models)
                 for home, names in OWNED.items()}
    assert misplaced == {home: [] for home in OWNED}


def test_importing_the_types_loads_no_engine() -> None:
    """A fresh interpreter importing the shared types loads the foundation and the types alone."""
    code = "import sys, auditor.models; print(' '.join(sorted(m for m in sys.modules if m.startswith('auditor'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    loaded = set(done.stdout.split())
    # the packages holding entry.py and spec.py run their `__init__` files, which import nothing
    assert {m for m in loaded if layer_of(m) > layer_of("auditor.models")} == {"auditor.knowledge", "auditor.fix"}
    assert {"auditor.knowledge.entry", "auditor.fix.spec"} <= loaded


def test_the_caches_hash_the_modules_that_define_what_they_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan cache keeps findings and reads entries; the kept knowledge rebuilds entries: an edit to
    a module defining those types is a new key."""
    from auditor.knowledge import stored
    from auditor.scan import cache

    read: list[Path] = []
    original = Path.read_bytes

    def record(self: Path) -> bytes:
        read.append(self.resolve())
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", record)
    cache.scanner_fingerprint.__wrapped__()
    scanned, read = set(read), []
    stored._digest(ROOT / "knowledge")
    types = {MODULES[m].resolve() for m in ("auditor.models", *OWNED)}
    assert types <= scanned
    assert types - {MODULES["auditor.models"].resolve()} <= set(read)


def test_modules_under_cli_are_short() -> None:
    long = {str(p.relative_to(ROOT)): n for p in sorted((PACKAGE / "cli").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > CLI_MAX_LINES}
    assert long == {}


def test_the_architecture_names_the_layers_in_order() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^\d+\. \*\*([a-z]+)\*\*", section, flags=re.MULTILINE)
    assert named == [name for name, _ in LAYERS]


@pytest.mark.parametrize(("source", "expected"), [
    ("from auditor.scan import syntax\n", "auditor.scan.syntax"),
    ("from . import syntax\n", "auditor.scan.syntax"),
    ("from .syntax import parse\n", "auditor.scan.syntax"),
    ("def f():\n    from ..models import Pin\n", "auditor.models"),
    ("import auditor.errors\n", "auditor.errors"),
])
def test_imports_are_read_wherever_they_stand(source: str, expected: str, tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert list(imports("auditor.scan.probe", path)) == [expected]


def scan_map() -> list[list[str]]:
    """The layers of `auditor/scan/__init__.py`'s map, bottom first: the modules of each."""
    doc = ast.get_docstring(ast.parse((PACKAGE / "scan" / "__init__.py").read_text(encoding="utf-8"))) or ""
    groups: list[list[str]] = []
    for line in doc.splitlines():
        if found := re.match(r"- (\w+): ", line):
            groups[-1].append(f"auditor.scan.{found[1]}")
        elif line[:1].isupper():  # a heading (or the prose above the first one)
            groups.append([])
    return [g for g in groups if g]


def test_the_scan_map_names_every_module_once_and_its_layers_hold() -> None:
    groups = scan_map()
    named = [m for g in groups for m in g]
    assert sorted(named) == sorted(m for m in MODULES if m.startswith("auditor.scan."))
    layer = {m: i for i, g in enumerate(groups) for m in g}
    climbs = [f"{m} imports {t}" for m in named for t in GRAPH[m] if t in layer and layer[t] > layer[m]]
    assert climbs == []
