"""A `setup.py`'s dependencies: not a lock, but a declaration, read like a pyproject.toml's (its
exact pins as pins, its ranges for `--resolve`). The file is parsed, never run: `install_requires`
and `extras_require` of each `setup(...)` call are read where the source writes them as literals
(lists, tuples, a string of lines, a dict of extras, a module-level name bound once to one of
those, or a sum of them). Anything computed (a call, a comprehension, `**options`) is not guessed:
the file is not read, and the error says where."""

from __future__ import annotations

import ast
from pathlib import Path

from auditor.errors import LockfileError
from auditor.lockfiles.interface import LockFormat, in_extra, unique_pins
from auditor.lockfiles.pep508 import requirement_pin
from auditor.models import Lock, Pin

FORMAT = "setup.py"
_READ = {
    "install_requires": "main",
    "extras_require": None,
}  # keyword -> group (None: one per extra)


def claims(path: Path, text: str) -> int:
    # a declaration, not a lock: claimed by name only, and weakly (as pyproject.toml is)
    return 1 if path.name == FORMAT else 0


def parse(path: Path, text: str) -> Lock:
    try:
        tree = ast.parse(text, str(path))
    except SyntaxError as exc:
        raise LockfileError(f"not Python: {exc.msg}", path, exc.lineno) from exc
    names = _Names(tree)
    pins: list[Pin] = []
    notes: list[str] = []
    for call in _setup_calls(tree):
        if any(k.arg is None for k in call.keywords):
            raise LockfileError(
                "setup(**...): its dependencies are computed, not written; not read",
                path,
                call.lineno,
            )
        for keyword in call.keywords:
            if keyword.arg == "install_requires":
                pins += [
                    requirement_pin(t, path, line, groups=("main",))
                    for t, line in _requirements(
                        names.value(keyword.value, path), path, keyword.lineno
                    )
                ]
            elif keyword.arg == "extras_require":
                try:
                    extras = names.value(keyword.value, path)
                except LockfileError as exc:  # the extras alone: install_requires is still read
                    notes.append(f"line {exc.line}: {exc.message}: the extras are not read")
                    continue
                if not isinstance(extras, dict):
                    notes.append(
                        f"line {keyword.lineno}: extras_require is not a dict: the extras are not read"
                    )
                    continue
                for key, items in extras.items():
                    extra, _, condition = key.partition(":")  # `"test:python_version<'3.11'"`
                    if isinstance(
                        items, LockfileError
                    ):  # one extra computed: the others are still read
                        notes.append(
                            f"line {items.line}: extra {extra!r} is computed when setup.py runs, not read"
                        )
                        continue
                    pins += [
                        in_extra(
                            requirement_pin(t, path, line, groups=(extra.strip() or "main",)),
                            extra.strip(),
                            condition.strip() or None,
                        )
                        for t, line in _requirements(items, path, keyword.lineno)
                    ]
    kept = unique_pins((p, path) for p in pins)
    return Lock(
        path=str(path),
        format=FORMAT,
        pins=tuple(sorted(kept, key=lambda p: p.line or 0)),
        notes=tuple(notes),
    )


def _setup_calls(tree: ast.Module) -> list[ast.Call]:
    """`setup(...)`, `setuptools.setup(...)`: calls of a name or attribute `setup`."""
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "setup")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "setup")
        )
    ]


_MUTATING = frozenset(
    {"append", "extend", "insert", "update", "setdefault", "pop", "remove", "clear", "add"}
)


class _Names:
    """Module-level names whose value the source writes: bound once (`deps = [...]`), a dict
    filled key by key (`extras = {}` then `extras["dev"] = [...]`); a name changed any other way
    (`+=`, `.append`, bound twice) has no value here."""

    def __init__(self, tree: ast.Module) -> None:
        bound: dict[str, list[ast.expr]] = {}
        self.items: dict[str, list[tuple[ast.expr, ast.expr]]] = {}
        changed: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    self.items.setdefault(target.value.id, []).append((target.slice, node.value))
        for inner in ast.walk(tree):
            if isinstance(inner, ast.AugAssign) and isinstance(inner.target, ast.Name):
                changed.add(inner.target.id)
            elif (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and isinstance(inner.func.value, ast.Name)
                and inner.func.attr in _MUTATING
            ):
                changed.add(inner.func.value.id)  # `deps.append(...)`, `extras.update(...)`
        self.bound = {n: v[0] for n, v in bound.items() if len(v) == 1 and n not in changed}

    def value(self, node: ast.expr, path: Path, seen: frozenset[str] = frozenset()) -> object:
        """A list of (requirement text, line), or a dict of key -> such a list (or the
        LockfileError that says why that key's value is not read). Raises LockfileError."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [
                (line.strip(), node.lineno + n) for n, line in enumerate(node.value.splitlines())
            ]
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out: list[tuple[str, int]] = []
            for item in node.elts:
                value = self.value(item, path, seen)
                if not isinstance(value, list):
                    raise LockfileError(
                        "a requirement list holds something other than strings", path, item.lineno
                    )
                out += value
            return out
        if isinstance(node, ast.Dict):
            return self._dict(list(zip(node.keys, node.values)), path, seen)
        if isinstance(node, ast.Name) and node.id in self.bound and node.id not in seen:
            value = self.value(self.bound[node.id], path, seen | {node.id})
            if isinstance(value, dict) and node.id in self.items:
                value.update(self._dict(list(self.items[node.id]), path, seen | {node.id}))
            return value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, path, seen), self.value(node.right, path, seen)
            if isinstance(left, list) and isinstance(right, list):
                return left + right
        what = ast.unparse(node)
        raise LockfileError(
            f"{what[:60]}: computed when setup.py runs, not written; not read", path, node.lineno
        )

    def _dict(
        self, pairs: list[tuple[ast.expr | None, ast.expr]], path: Path, seen: frozenset[str]
    ) -> dict[str, object]:
        found: dict[str, object] = {}
        for key, value in pairs:
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise LockfileError("extras_require: a key is not a string", path, value.lineno)
            try:
                found[key.value] = self.value(value, path, seen)
            except LockfileError as exc:
                found[key.value] = exc
        return found


def _requirements(items: object, path: Path, line: int) -> list[tuple[str, int]]:
    if not isinstance(items, list):
        raise LockfileError("expected a list of requirements", path, line)
    return [
        (text.split("#", 1)[0].strip(), at) for text, at in items if text.split("#", 1)[0].strip()
    ]


SETUP_PY = LockFormat(FORMAT, claims, parse)
