"""Do the knowledge probes exercise each change the way its matchers say users hit it?

For every probed entry this reads the probe's code (as Python, with `ast`) next to the entry's
`[[match]]` call shapes and lists the mismatches a machine can see:

- `context-manager`: a call matcher whose target is a context manager (a class with
  `__enter__`, a `contextlib.contextmanager` function, or shown as `with name(` in the entry's
  docs) but whose probe has no `with name(...)`: the probe calls it without entering it.
- `warnings-not-recorded`: the entry claims a warning (`warns`, or "warns" printed) but the probe
  does not record warnings (`catch_warnings(record=True)` with `simplefilter("always")`).
- `category-unchecked`: a deprecation's probe records warnings but never reads their category,
  declares none (`warns`) and prints none: a warning of another category would pass as the one
  the entry claims.
- `from-docs`: the probe reads `__doc__` or source text instead of running the change.
- `keyword-shape`: no call of the matched name in the probe has the keyword shape of any of
  its matchers: a `keyword_absent` matcher whose keyword every call passes (the default is never
  exercised), a `keyword_present`/`keyword_values` matcher whose keyword no call passes.
- `call-absent`, `method-absent`, `operator-absent`, `module-absent`: for a kind of matcher
  the entry has, the probe exercises none: names none of its calls, calls none of its methods as
  `.name(...)`, has no `//`, imports none of its modules (one representative of many is enough).

Probes a rule cannot judge are listed in EXEMPT with the reason, and must stay flagged (so the
list does not go stale). `python tests/knowledge/test_probe_shapes.py` lists every flag.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import Condition, Match, SpecChange


@dataclass(frozen=True)
class Flag:
    id: str
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.id}: {self.rule}: {self.detail}"


def _last(name: str) -> str:
    return name.rpartition(".")[2]


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _named_calls(tree: ast.AST, name: str) -> Iterator[ast.Call]:
    """Calls of `name` (its last component), also `getattr(x, "name")(...)` and calls of a name
    bound to `getattr(x, "name", ...)`."""
    aliases = {name}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _mentions(node.value, name):
            aliases |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _called_name(node)
        if called in aliases or (isinstance(node.func, ast.Call) and _mentions(node.func, name)):
            yield node


def _mentions(node: ast.AST, name: str) -> bool:
    """The node names `name`: as an attribute, a name, or a string (getattr, import_module)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == name:
            return True
        if isinstance(sub, ast.Name) and sub.id == name:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and (
            sub.value == name or sub.value.endswith("." + name)
        ):
            return True
        if isinstance(sub, ast.alias) and _last(sub.name) == name:
            return True
    return False


def _resolve(qualified: str) -> object | None:
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:  # not a module: the name is an attribute of a shorter one
            continue
        for part in parts[cut:]:
            with warnings.catch_warnings():  # deprecated module attributes warn when read
                warnings.simplefilter("ignore")
                obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj
    return None


def is_context_manager(qualified: str, entry: SpecChange) -> bool:
    """Users enter it: the entry's docs show `with name(`, or the object is one."""
    shown = "\n".join(filter(None, (entry.docs.before, entry.docs.keep_old)))
    if re.search(r"(^|[:;]\s*)with\s+[\w.]*\b" + re.escape(_last(qualified)) + r"\(", shown, re.MULTILINE):
        return True
    obj = _resolve(qualified)
    if inspect.isclass(obj):
        return hasattr(obj, "__enter__")
    wrapped = getattr(obj, "__wrapped__", None)
    if callable(obj) and wrapped is not None:
        code = getattr(getattr(obj, "__code__", None), "co_name", "")
        return code == "helper" and "contextlib" in (inspect.getsourcefile(obj) or "")
    return False


def _entered(tree: ast.AST, name: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                expr = item.context_expr
                if isinstance(expr, ast.Call) and (_called_name(expr) == name or _mentions(expr.func, name)):
                    return True
                if isinstance(expr, ast.Name):  # `cm = name(...)`, then `with cm:`
                    for bind in ast.walk(tree):
                        if isinstance(bind, ast.Assign) and any(
                            isinstance(t, ast.Name) and t.id == expr.id for t in bind.targets
                        ) and _mentions(bind.value, name):
                            return True
    return False


def _records_warnings(tree: ast.AST) -> bool:
    record = always = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) == "catch_warnings":
            record |= any(k.arg == "record" for k in node.keywords)
        if isinstance(node, ast.Call) and _called_name(node) in ("simplefilter", "filterwarnings"):
            first = node.args[0] if node.args else None
            always |= isinstance(first, ast.Constant) and first.value in ("always", "error")
        if isinstance(node, ast.Call) and _called_name(node) == "filterwarnings" and any(
            k.arg == "action" for k in node.keywords
        ):
            always = True
    return record and always


def _reads_category(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "category" for n in ast.walk(tree))


def _reads_docs(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "__doc__":
            return True
        if isinstance(node, ast.Call) and _called_name(node) in ("getsource", "getsourcelines"):
            return True
    return False


def _satisfies(call: ast.Call, when: Condition) -> bool:
    """The call has the keyword shape the condition looks for (`**kwargs` may pass anything)."""
    passed = {k.arg for k in call.keywords}
    spread = None in passed
    if any(k in passed for k in when.keyword_absent):
        return False
    if when.keyword_present and not spread and not passed & set(when.keyword_present):
        return False
    given = {k.arg: k.value for k in call.keywords if k.arg is not None}
    return spread or all(k in given and _may_be(given[k], values) for k, values in when.keyword_values)


def _may_be(value: ast.expr, values: tuple[object, ...]) -> bool:
    """A literal (or a dotted name such as torch.float16) among the values; any other value may be."""
    try:
        return ast.literal_eval(value) in values
    except ValueError:
        pass
    if isinstance(value, ast.Attribute):
        return ast.unparse(value) in values
    return True


def _exercised(match: Match, tree: ast.AST) -> bool:
    if match.call is not None:
        return _mentions(tree, _last(match.call))
    if match.method:
        return any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in match.method
            for n in ast.walk(tree)
        )
    if match.operator:
        return any(
            isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, ast.FloorDiv) for n in ast.walk(tree)
        )
    if match.module is not None:
        return _mentions(tree, _last(match.module))
    return True  # assign: not checked


def _kind(match: Match) -> str:
    return "call" if match.call else "method" if match.method else "operator" if match.operator else (
        "module" if match.module else "assign"
    )


SHOWN = {"call": "names none of", "method": "calls none of the methods", "operator": "uses none of",
         "module": "imports none of"}


def entry_flags(entry: SpecChange) -> list[Flag]:
    probe = entry.probe
    if probe is None:
        return []
    tree = ast.parse(probe.code)
    found: dict[tuple[str, str], None] = {}
    claims_warning = probe.warns is not None or "warns" in (probe.before, probe.after)
    if claims_warning and not _records_warnings(tree):
        found["warnings-not-recorded", "the entry claims a warning; the probe does not record warnings"] = None
    if entry.kind == "deprecated" and _records_warnings(tree) and not _reads_category(tree) \
            and probe.warns is None and not any("Warning" in side for side in (probe.before, probe.after)):
        found["category-unchecked", "the probe reads warnings by their message, never their category"] = None
    if _reads_docs(tree):
        found["from-docs", "the probe reads __doc__ or source text"] = None
    # each kind of matcher (call, method, operator, module) has one representative in the probe
    for kind, label in SHOWN.items():
        of_kind = [m for m in entry.matches if _kind(m) == kind]
        if of_kind and not any(_exercised(m, tree) for m in of_kind):
            names = [m.call or m.module or "/".join(m.method or m.operator) for m in of_kind]
            more = ", ..." if len(names) > 3 else ""
            found[f"{kind}-absent", f"the probe {label} {', '.join(names[:3])}{more}"] = None
    by_name: dict[str, list[Match]] = {}
    for match in entry.matches:
        if match.call is not None:
            by_name.setdefault(_last(match.call), []).append(match)
    for name, matches in by_name.items():
        calls = list(_named_calls(tree, name))
        entered = _entered(tree, name)
        if _mentions(tree, name) and not entered and any(is_context_manager(m.call or "", entry) for m in matches):
            found["context-manager", f"{name} is a context manager; the probe never enters it"] = None
        shaped = [m for m in matches if m.when.keyword_absent or m.when.keyword_present or m.when.keyword_values]
        if calls and len(shaped) == len(matches) and not any(_satisfies(c, m.when) for c in calls for m in matches):
            wanted = "; ".join(_shape(m.when) for m in matches)
            found["keyword-shape", f"no call of {name} has a matcher's keyword shape ({wanted})"] = None
    return [Flag(entry.id, rule, detail) for rule, detail in found]


def _shape(when: Condition) -> str:
    parts = [f"without {k}=" for k in when.keyword_absent]
    parts += [f"with {' or '.join(k + '=' for k in when.keyword_present)}"] if when.keyword_present else []
    parts += [f"with {k}={'|'.join(map(repr, v))}" for k, v in when.keyword_values]
    return ", ".join(parts)


ONNX_OPSET = (
    "the default opset is what an export without opset_version writes, but exporting needs the onnx "
    "package (and onnxscript for the default dynamo path of 2.9+), which kb verify does not install: "
    "the probe reads the exporter's default constant"
)
DOCS_ONLY = (
    "a deprecation in the documentation only: the probe runs the call and shows it gives no "
    "warning of any category; the docstring is the only trace the release leaves at run time"
)
# Flags a rule cannot judge, by entry id: (the rule, why the probe is right as it is).
EXEMPT: dict[str, tuple[set[str], str]] = {
    **{f"torch-onnx-default-opset-{v}": ({"call-absent"}, ONNX_OPSET) for v in (13, 14, 17, 18, 20)},
    **{
        f"torch-{name}-deprecated": ({"from-docs", "category-unchecked"}, DOCS_ONLY)
        for name in ("ger", "norm", "svd")
    },
    "torch-upsampling-nearest-bilinear-2d-deprecated": (
        {"from-docs"},
        (
            "a deprecation in the documentation only from 1.1 on; 1.0.0 also warned at run time for "
            "every nn.Upsample subclass, so the probe (which must pass on 1.0.0, its floor) reads the "
            "docstring and records no warnings"
        ),
    ),
    "torch-quantized-tensor-creation-deprecated": (
        {"warnings-not-recorded", "call-absent"},
        (
            "the call and the recording run in a child interpreter the probe starts (the warning "
            "is given once per process); the child's code is a string the checker does not read"
        ),
    ),
}


def probed(kb: KnowledgeBase) -> list[SpecChange]:
    return [e for e in kb.entries if e.probe is not None and e.package in ("torch", "numpy")]


def test_probes_exercise_their_matchers_call_shapes(kb: KnowledgeBase) -> None:
    flags = [f for e in probed(kb) for f in entry_flags(e)]
    unexplained = [str(f) for f in flags if f.rule not in EXEMPT.get(f.id, (set(), ""))[0]]
    assert unexplained == []
    flagged = {(f.id, f.rule) for f in flags}
    stale = [(i, r) for i, (rules, _) in EXEMPT.items() for r in rules if (i, r) not in flagged]
    assert stale == []


def _with_probe(entry: SpecChange, code: str, **changes: Any) -> SpecChange:
    assert entry.probe is not None
    return replace(entry, probe=replace(entry.probe, code=code, **changes))


def _rules(entry: SpecChange) -> set[str]:
    return {f.rule for f in entry_flags(entry)}


def test_a_context_manager_called_but_not_entered_is_flagged(kb: KnowledgeBase) -> None:
    # issue 17: this probe saw silence on 2.3, where the warning fires only on `with`
    entry = kb.get("torch-sdp-kernel-deprecated")
    called = _with_probe(entry, RECORDED.format("torch.backends.cuda.sdp_kernel()"))
    entered = _with_probe(entry, RECORDED.format("with torch.backends.cuda.sdp_kernel():\n        pass"))
    assert "context-manager" in _rules(called)
    assert "context-manager" not in _rules(entered)
    # known by the object too, where the docs do not show `with`
    autocast = kb.get("torch-autocast-added")
    assert "context-manager" in _rules(_with_probe(autocast, 'import torch\nprint(hasattr(torch, "autocast"))'))


RECORDED = """
import warnings
import torch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    {}
print("warns" if caught else "silent")
"""


def test_a_claimed_warning_that_is_not_recorded_is_flagged(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-sdp-kernel-deprecated")
    unrecorded = "import torch\nwith torch.backends.cuda.sdp_kernel():\n    pass\nprint('warns')"
    assert "warnings-not-recorded" in _rules(_with_probe(entry, unrecorded))
    from_docs = RECORDED.format("print('deprecated' in torch.backends.cuda.sdp_kernel.__doc__)")
    assert "from-docs" in _rules(_with_probe(entry, from_docs))


def test_a_warning_read_without_its_category_is_flagged(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-cholesky-deprecated")
    assert entry.probe is not None and entry.probe.warns is None
    by_message = entry.probe.code.replace(' and w.category.__name__ == "UserWarning"', "")
    assert by_message != entry.probe.code
    assert "category-unchecked" in _rules(_with_probe(entry, by_message))
    assert "category-unchecked" not in _rules(entry)


def test_a_default_must_be_omitted_and_a_keyword_passed(kb: KnowledgeBase) -> None:
    # num_workers absent, or num_workers=0; with prefetch_factor either way
    entry = kb.get("torch-dataloader-prefetch-factor-requires-workers")
    passes = "import torch\ntorch.utils.data.DataLoader([1], num_workers=0, prefetch_factor=2)"
    neither = "import torch\ntorch.utils.data.DataLoader([1], num_workers=1)"
    omits = "import torch\ntorch.utils.data.DataLoader([1], prefetch_factor=2)"
    assert "keyword-shape" not in _rules(_with_probe(entry, passes))  # num_workers=0 is matched
    assert "keyword-shape" in _rules(_with_probe(entry, neither))  # prefetch_factor never passed
    assert "keyword-shape" not in _rules(_with_probe(entry, omits))
    onnx = kb.get("torch-onnx-export-legacy-path-warns")  # dynamo absent, or dynamo=False
    other = "import torch\ntorch.onnx.export(m, args, f, dynamo=True)"
    assert "keyword-shape" in _rules(_with_probe(onnx, other))
    assert "keyword-shape" not in _rules(_with_probe(onnx, other.replace("True", "False")))


def test_a_method_matcher_is_probed_through_the_method(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-gels-removed")
    assert "method-absent" in _rules(_with_probe(entry, 'import torch\nprint(hasattr(torch, "gels"))'))
    assert "method-absent" not in _rules(_with_probe(entry, "import torch\ntorch.ones(2, 1).gels(torch.eye(2))"))


def test_an_operator_matcher_is_probed_through_the_operator(kb: KnowledgeBase) -> None:
    entry = next(e for e in kb.entries if e.probe and any(m.operator for m in e.matches))
    assert "operator-absent" in _rules(_with_probe(entry, "import torch\ntorch.floor_divide(torch.ones(1), 2)"))
    assert "operator-absent" not in _rules(_with_probe(entry, "import torch\ntorch.ones(1) // 2"))


if __name__ == "__main__":
    everything = probed(KnowledgeBase.load())
    listed = [f for e in everything for f in entry_flags(e)]
    for flag in listed:
        print(flag, "(exempt)" if flag.rule in EXEMPT.get(flag.id, (set(), ""))[0] else "")
    print(f"{len(everything)} probes reviewed, {len({f.id for f in listed})} flagged ({len(listed)} flags)")
