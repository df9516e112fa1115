"""Candidate lines of one project for the recall set, labelled by an independent rule:
a call (or decorator) whose last name is that of a crossed unconditional (or keyword_absent)
call matcher; true when its module-level import resolves it to the matcher and no keyword it
must lack is given; every floor division too (labelled by hand)."""
import ast, json, sys
from pathlib import Path

ROOT, OUT = Path(sys.argv[1]), sys.argv[2]
MATCHERS = json.load(open(Path(__file__).with_name("matchers.json")))
LAST = {}
for call in MATCHERS:
    LAST.setdefault(call.rsplit(".", 1)[-1], []).append(call)

def imports(tree):
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names

def dotted(expr):
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr); expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id); return ".".join(reversed(parts))
    return None

out = []
for path in sorted(ROOT.rglob("*.py")):
    rel = path.relative_to(ROOT).as_posix()
    try:
        tree = ast.parse(path.read_text("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        continue
    imp = imports(tree)
    def add(node, func, kind, keywords, spread):
        last = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else None)
        if last not in LAST:
            return
        text = dotted(func)
        q = None
        if text:
            root, _, rest = text.partition(".")
            if root in imp:
                q = imp[root] + ("." + rest if rest else "")
                q = q.replace("torch.nn.modules.", "torch.nn.") if q.startswith("torch.nn.modules.") else q
        changes = []
        if q in MATCHERS:
            for change, absent in MATCHERS[q]:
                if not any(k in keywords for k in absent):
                    changes.append(change)
        out.append({"path": rel, "line": node.lineno, "kind": kind, "text": text or ast.unparse(func)[:60],
                    "qualified": q, "changes": sorted(set(changes)), "spread": spread})
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            kws = {k.arg for k in node.keywords if k.arg}
            spread = any(k.arg is None for k in node.keywords)
            add(node, node.func, "call", kws, spread)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                if isinstance(d, (ast.Name, ast.Attribute)):
                    add(d, d, "decorator", set(), False)
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.FloorDiv):
            out.append({"path": rel, "line": node.lineno, "kind": "//", "text": ast.unparse(node)[:110]})
json.dump(out, open(OUT, "w"), indent=0)
