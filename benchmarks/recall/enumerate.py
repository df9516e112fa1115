"""Candidate lines of one package for the recall labels, labelled by a rule independent of the
scanner (benchmarks/recall/README.md).

    python benchmarks/recall/enumerate.py TREE OUT.json

A call (or decorator) whose last name is that of a call matcher in matchers.json (those crossed
by torch 1.10.0 -> 2.15.0 with no condition but keyword_absent) is a candidate; its changes are
those whose matcher the module's own import statements resolve its dotted name to, less those
whose keywords it passes. Every `//` is listed too, to be labelled by hand.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

MATCHERS: dict[str, list[list[Any]]] = json.loads(Path(__file__).with_name("matchers.json").read_text("utf-8"))
LAST = {call.rsplit(".", 1)[-1] for call in MATCHERS}


def imports(tree: ast.Module) -> dict[str, str]:
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def dotted(expr: ast.expr) -> str | None:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


def candidate(rel: str, imported: dict[str, str], node: ast.AST, func: ast.expr, keywords: set[str], spread: bool) -> dict[str, Any] | None:
    last = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else None)
    if last not in LAST:
        return None
    text = dotted(func)
    qualified = None
    if text:
        root, _, rest = text.partition(".")
        if root in imported:
            qualified = imported[root] + ("." + rest if rest else "")
            if qualified.startswith("torch.nn.modules."):
                qualified = qualified.replace("torch.nn.modules.", "torch.nn.")
    changes = {
        change for change, absent in MATCHERS.get(qualified or "", []) if not any(k in keywords for k in absent)
    }
    return {"path": rel, "line": node.lineno, "kind": "call", "text": text or ast.unparse(func)[:60],  # type: ignore[attr-defined]
            "qualified": qualified, "changes": sorted(changes), "spread": spread}


def main() -> None:
    root, out = Path(sys.argv[1]), Path(sys.argv[2])
    found: list[dict[str, Any]] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_text("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        imported = imports(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                keywords = {k.arg for k in node.keywords if k.arg}
                spread = any(k.arg is None for k in node.keywords)
                found.append(candidate(rel, imported, node, node.func, keywords, spread) or {})
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for d in node.decorator_list:
                    if isinstance(d, (ast.Name, ast.Attribute)):
                        found.append(candidate(rel, imported, d, d, set(), False) or {})
            if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.FloorDiv):
                found.append({"path": rel, "line": node.lineno, "kind": "//", "text": ast.unparse(node)[:110]})
    out.write_text(json.dumps([f for f in found if f], indent=0), "utf-8")


if __name__ == "__main__":
    main()
