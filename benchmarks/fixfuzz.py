"""Fuzz the shipped fixes over call shapes, on real builds: count the rewrites that raise where
the original call did not.

    python benchmarks/fixfuzz.py --old ~/.cache/auditor/envs/torch-1.12.1-py3.10/bin/python
    python benchmarks/fixfuzz.py --json --entry torch-lu-deprecated
    python benchmarks/fixfuzz.py --package numpy --old <a python with numpy 1.26>
    python benchmarks/fixfuzz.py --knowledge DIR    # another checkout's knowledge/

For every entry of the package (torch unless --package) with a `[fix]` and a probe, each call site the entry's matchers find in
the probe is varied: each optional parameter of the original function (its signature read on
each build that has it) given by keyword with its default and, for a bool, the other value; the
next parameter given positionally; the last positional argument given by keyword. Each variant
is rewritten by the engine in each mode, and the call itself is wrapped so that a run records
whether that call raised. The original runs on the old build (`--old`) and on this interpreter
(the new build); the rewrite runs on this interpreter. A rewrite "raises where the original did
not" when the original ran on at least one build and the rewrite raised here, other than
the original raised here. Variants the
engine leaves alone are counted apart, with their reason kinds.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import json
import subprocess
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from packaging.version import Version

from auditor.fix.apply import findings_in_source, rewrite_source
from auditor.fix.spec import FIX_MODES
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange, release
from auditor.models import Finding

SIGNATURES = r"""
import inspect, json, sys, warnings
warnings.simplefilter("ignore")
import importlib
root = importlib.import_module(sys.argv[2])
overrides = {}
if sys.argv[2] == "torch" and hasattr(root, "overrides"):
    overrides = root.overrides.get_testing_overrides()
found = {}
for symbol in json.loads(sys.argv[1]):
    obj = root
    try:
        for part in symbol.split(".")[1:]:
            obj = getattr(obj, part)
    except AttributeError:
        continue
    sigs = []
    for candidate in (obj, overrides.get(obj)):
        try:
            sigs.append(inspect.signature(candidate))
        except (TypeError, ValueError):
            continue
    named = [s for s in sigs if not any(p.kind.name.startswith("VAR_") for p in s.parameters.values())]
    if not sigs:
        continue
    sig = (named or sigs)[0]  # a dispatching wrapper (*args, **kwargs) says nothing: the override's lambda does
    params = []
    for p in sig.parameters.values():
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        params.append([p.name, p.kind.name, default])
    found[symbol] = params
print(json.dumps(found))
"""

RUNNER = r"""
import json, signal, sys, warnings
snippets = json.loads(sys.stdin.read())
results = {}
def alarm(*_):
    raise TimeoutError("the snippet took over 30 s")
signal.signal(signal.SIGALRM, alarm)
for key, code in snippets.items():
    log = []
    def fz(thunk, log=log):
        try:
            value = thunk()
        except BaseException as exc:
            log.append(type(exc).__name__ + ": " + (str(exc).splitlines() or [""])[0][:160])
            raise
        log.append("ok")
        return value
    namespace = {"__fz": fz, "__name__": "__fuzz__"}
    signal.alarm(30)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, "<fuzz>", "exec"), namespace)
    except BaseException:
        pass
    finally:
        signal.alarm(0)
    results[key] = log[0] if log else None
print(json.dumps(results))
"""


@dataclass(frozen=True, slots=True)
class Case:
    entry: str
    mode: str
    symbol: str
    call: str  # the variant as written in the probe
    rewritten: str | None  # the rewritten call site's line, None when left alone
    left_kind: str | None
    original_old: str | None = None
    original_new: str | None = None
    rewrite_new: str | None = None

    @property
    def original_ran(self) -> bool:
        return "ok" in (self.original_old, self.original_new)

    @property
    def raises(self) -> bool:
        # the same error as the original's on the new build is the change itself, not the rewrite
        failed = self.rewrite_new not in ("ok", None, self.original_new)
        return self.rewritten is not None and self.original_ran and failed


def _call_at(tree: ast.AST, f: Finding) -> ast.Call | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno == f.line and node.col_offset == f.column - 1:
            return node
    return None


def _variants(source: str, call: ast.Call, params: list[list[str | None]], method: bool) -> list[str]:
    """The call as written and its variants (sources of the whole call)."""
    func = ast.get_source_segment(source, call.func) or ""
    positional = [ast.get_source_segment(source, a) or "" for a in call.args]
    keywords = [(k.arg, ast.get_source_segment(source, k.value) or "") for k in call.keywords]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k is None for k, _ in keywords):
        return []
    named = params[1:] if method and params and params[0][0] == "self" else params
    given = {k for k, _ in keywords}

    def write(pos: list[str], kws: list[tuple[str | None, str]]) -> str:
        return f"{func}({', '.join([*pos, *(f'{k}={v}' for k, v in kws)])})"

    found = [write(positional, keywords)]
    for index, (name, kind, default) in enumerate(named):
        if default is None or index < len(positional) or name in given or kind not in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"):
            continue
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError):
            continue
        values = [default] + ([repr(not value)] if isinstance(value, bool) else [])
        found += [write(positional, [*keywords, (name, v)]) for v in values]
        if index == len(positional) and kind == "POSITIONAL_OR_KEYWORD":
            found += [write([*positional, v], keywords) for v in values]
    last = len(positional) - 1
    if last >= 0 and last < len(named) and named[last][1] == "POSITIONAL_OR_KEYWORD":
        found.append(write(positional[:-1], [(named[last][0], positional[-1]), *keywords]))
    return list(dict.fromkeys(found))


def _replace(source: str, call: ast.Call, text: str) -> str:
    lines = source.splitlines(keepends=True)
    assert call.end_lineno is not None and call.end_col_offset is not None
    head = "".join(lines[: call.lineno - 1]) + lines[call.lineno - 1][: call.col_offset]
    tail = lines[call.end_lineno - 1][call.end_col_offset:] + "".join(lines[call.end_lineno:])
    return head + text + tail


def _signatures(python: str, symbols: list[str], package: str) -> dict[str, list[list[str | None]]]:
    done = subprocess.run([python, "-c", SIGNATURES, json.dumps(symbols), package], check=False, capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}


def _run(python: str, snippets: dict[str, str]) -> dict[str, str | None]:
    results: dict[str, str | None] = {}
    keys = sorted(snippets)
    for start in range(0, len(keys), 40):  # a crash loses one chunk, not the whole run
        chunk = {k: snippets[k] for k in keys[start:start + 40]}
        try:
            done = subprocess.run([python, "-c", RUNNER], check=False, input=json.dumps(chunk), capture_output=True, text=True, timeout=900)
            results.update(json.loads(done.stdout.strip().splitlines()[-1]))
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError):
            results.update(dict.fromkeys(chunk))
    return results


def cases(entries: list[SpecChange], old: str | None) -> list[Case]:
    sites: list[tuple[SpecChange, Finding, ast.Call]] = []
    for entry in entries:
        assert entry.probe is not None
        tree = ast.parse(entry.probe.code)
        for f in findings_in_source(entry.probe.code, [entry], "<probe>"):
            call = _call_at(tree, f) if f.shape in ("call", "method") else None
            if call is not None:
                sites.append((entry, f, call))
    symbols = sorted({f.symbol for _, f, _ in sites})
    package = entries[0].package if entries else "torch"
    builds = [_signatures(sys.executable, symbols, package)] + ([_signatures(old, symbols, package)] if old is not None else [])
    found: list[Case] = []
    originals: dict[str, str] = {}
    rewrites: dict[str, str] = {}
    for entry, f, call in sites:
        code = entry.probe.code if entry.probe else ""
        variants = [v for sigs in builds for v in _variants(code, call, sigs.get(f.symbol, []), f.shape == "method")]
        for variant in dict.fromkeys(variants):  # the parameters of each build's signature
            wrapped = _replace(code, call, f"__fz(lambda: {variant})")
            originals[wrapped] = wrapped
            at = f"__fz(lambda: {variant})"
            here = [g for g in findings_in_source(wrapped, [entry], "<probe>") if g.line == f.line and g.symbol == f.symbol]
            for mode in FIX_MODES:
                assert entry.fix is not None
                if not entry.fix.transforms(mode):
                    continue
                new = release(installed(entry.package))  # a rewrite that needs another build is left alone (requires)
                done = rewrite_source(wrapped, here, [entry], mode, min_confidence="low", versions={entry.package: (new, new)})
                if at in done.new_source:
                    kinds = sorted({x.kind for x in done.left_alone}) or ["not-matched"]  # the matcher skips this shape
                    found.append(Case(entry.id, mode, f.symbol, variant, None, ",".join(kinds)))
                    continue
                line = next((ln.strip() for ln in done.new_source.splitlines() if "__fz(lambda:" in ln), "?")
                rewrites[done.new_source] = done.new_source
                found.append(Case(entry.id, mode, f.symbol, variant, line, None, wrapped, wrapped, done.new_source))
    keyed = {f"s{i}": s for i, s in enumerate(sorted({**originals, **rewrites}))}
    back = {s: k for k, s in keyed.items()}
    new_runs = _run(sys.executable, keyed)
    old_runs = _run(old, {back[s]: s for s in originals}) if old else {}
    result = []
    for c in found:
        if c.rewritten is None:
            result.append(c)
            continue
        assert c.original_old is not None and c.rewrite_new is not None
        key = back[c.original_old]
        result.append(Case(c.entry, c.mode, c.symbol, c.call, c.rewritten, None,
                           old_runs.get(key), new_runs.get(key), new_runs.get(back[c.rewrite_new])))
    return result


def installed(package: str) -> Version:
    return Version(importlib.metadata.version(package))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", help="an interpreter with an older release of the package (the original's side)")
    parser.add_argument("--package", default="torch")
    parser.add_argument("--entry", action="append", default=[], help="only these entries")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--knowledge", type=Path, help="another checkout's knowledge/")
    options = parser.parse_args()
    kb = KnowledgeBase.load(options.knowledge)
    chosen = [e for e in kb.entries if e.package == options.package and e.fix is not None and e.probe is not None and (not options.entry or e.id in options.entry)]
    found = cases(chosen, options.old)
    if options.json:
        print(json.dumps([asdict(c) | {"raises": c.raises} for c in found], indent=1, sort_keys=True))
        return 0
    rewritten = [c for c in found if c.rewritten is not None]
    left = Counter(c.left_kind for c in found if c.rewritten is None)
    print(f"entries: {len(chosen)}; variants x modes: {len(found)}; rewritten: {len(rewritten)}; left alone: {sum(left.values())} "
          f"({', '.join(f'{k} {n}' for k, n in sorted(left.items(), key=str))})")
    ran = [c for c in rewritten if c.original_ran]
    print(f"rewritten where the original ran: {len(ran)}; the rewrite raised: {sum(c.raises for c in ran)}; "
          f"original did not run on either build: {len(rewritten) - len(ran)}")
    for c in found:
        if c.raises:
            print(f"RAISES {c.entry} [{c.mode}] {c.call}\n    -> {c.rewritten}\n    {c.rewrite_new}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
