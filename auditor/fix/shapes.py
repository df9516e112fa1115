"""The call shapes a fix claims, run on real builds: the shape proof of `[fix]` tables.

Each call site an entry's matchers find in its own probe is varied over the shapes a call can
take: the call as written; each keyword it gives dropped, and a bool it gives flipped; each
optional parameter of the original function (its signature read on each build that has it)
given by keyword with its default and, for a bool, the other value; each literal value a
transform's `proven_values` lists; the next parameter given positionally; the last positional
argument given by keyword.
The engine rewrites each variant in each mode: the variants it rewrites are the shapes the fix
claims (a call outside them is left alone). The original runs on the old build and on the new
one, the rewrite on the new one, each call wrapped so that a run records whether that very call
raised. A claimed shape "raises" when the original ran on a build and the rewrite raised on the
new one, other than the original's own error there (that error is the change itself).

`shape_cases(entries, old, new)` does it for entries of one package; `benchmarks/fixfuzz.py`
prints the figures, and the knowledge tests hold every shipped fix to 0 raising shapes.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from packaging.version import Version

from auditor.fix.apply import findings_in_source, rewrite_source
from auditor.fix.spec import FIX_MODES, FixMode, Transform
from auditor.knowledge.entry import SpecChange, release
from auditor.models import Finding, ShapeRun

Param = tuple[str, str, str | None]  # name, kind (inspect.Parameter.kind's name), default's repr

_SIGNATURES = r"""
import importlib, inspect, json, sys, warnings
warnings.simplefilter("ignore")
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

_RUNNER = r"""
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
    namespace = {"__fz": fz, "__name__": "__shape__"}
    signal.alarm(30)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, "<shape>", "exec"), namespace)
    except BaseException:
        pass
    finally:
        signal.alarm(0)
    results[key] = log[0] if log else None
print(json.dumps(results))
"""


@dataclass(frozen=True, slots=True)
class ShapeCase:
    """One variant of a probe's call in one mode: its rewrite (None when left alone, with the
    kind), the transform that made it (its index in the mode's table), and what each run of
    the call gave ("ok", the error's first line, or None when the call was not reached)."""

    entry: str
    mode: FixMode
    symbol: str
    call: str  # the variant as written in the probe
    rewritten: str | None  # the rewritten call site's line, None when left alone
    left_kind: str | None
    transform: int | None = None
    original_old: str | None = None
    original_new: str | None = None
    rewrite_new: str | None = None

    @property
    def original_ran(self) -> bool:
        return "ok" in (self.original_old, self.original_new)

    @property
    def raises(self) -> bool:
        failed = self.rewrite_new not in ("ok", None, self.original_new)
        return self.rewritten is not None and self.original_ran and failed

    @property
    def status(self) -> Literal["left-alone", "proven", "raises", "unrun"]:
        """A claimed (rewritten) shape: proven when the original ran and the rewrite did not
        raise; unrun when the original ran on neither build (nothing to hold the rewrite to)."""
        if self.rewritten is None:
            return "left-alone"
        if not self.original_ran:
            return "unrun"
        return "raises" if self.raises else "proven"


def signatures(python: str, symbols: list[str], package: str) -> dict[str, list[Param]]:
    """Each symbol's parameters as `python`'s build of `package` has them (absent: not there)."""
    done = subprocess.run(
        [python, "-c", _SIGNATURES, json.dumps(symbols), package],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or not done.stdout.strip():
        return {}
    return {
        k: [(n, kind, d) for n, kind, d in v]
        for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()
    }


def run(python: str, snippets: dict[str, str]) -> dict[str, str | None]:
    """Each snippet run by `python` in batches: what its wrapped call gave."""
    results: dict[str, str | None] = {}
    keys = sorted(snippets)
    for start in range(0, len(keys), 40):  # a crash loses one batch, not the whole run
        chunk = {k: snippets[k] for k in keys[start : start + 40]}
        try:
            done = subprocess.run(
                [python, "-c", _RUNNER],
                check=False,
                input=json.dumps(chunk),
                capture_output=True,
                text=True,
                timeout=900,
            )
            results.update(json.loads(done.stdout.strip().splitlines()[-1]))
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError):
            results.update(dict.fromkeys(chunk))
    return results


def variants(
    source: str,
    call: ast.Call,
    params: list[Param],
    method: bool,
    values: dict[str, tuple[str, ...]],
) -> list[str]:
    """The call as written and its variants (sources of the whole call). `values`: literal
    values to give each keyword besides its default (a transform's `proven_values`)."""
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
    for name, value in keywords:
        found.append(write(positional, [kw for kw in keywords if kw[0] != name]))
        if value in ("True", "False"):
            found.append(
                write(
                    positional,
                    [(k, str(value == "False") if k == name else v) for k, v in keywords],
                )
            )
    for name, listed in sorted(values.items()):
        found += [
            write(positional, [*(kw for kw in keywords if kw[0] != name), (name, v)])
            for v in listed
        ]
    for index, (name, kind, default) in enumerate(named):
        if (
            default is None
            or index < len(positional)
            or name in given
            or kind not in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")
        ):
            continue
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError):
            continue
        tried = [default] + ([repr(not value)] if isinstance(value, bool) else [])
        found += [write(positional, [*keywords, (name, v)]) for v in tried]
        if index == len(positional) and kind == "POSITIONAL_OR_KEYWORD":
            found += [write([*positional, v], keywords) for v in tried]
    last = len(positional) - 1
    if 0 <= last < len(named) and named[last][1] == "POSITIONAL_OR_KEYWORD":
        found.append(write(positional[:-1], [(named[last][0], positional[-1]), *keywords]))
    return list(dict.fromkeys(found))


def _call_at(tree: ast.AST, f: Finding) -> ast.Call | None:
    """The call the finding is at: the innermost one starting there (`f(x).g()` starts there too)."""
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and n.lineno == f.line and n.col_offset == f.column - 1
    ]
    return min(calls, key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0), default=None)


def _replace(source: str, call: ast.Call, text: str) -> str:
    lines = source.splitlines(keepends=True)
    assert call.end_lineno is not None and call.end_col_offset is not None
    head = "".join(lines[: call.lineno - 1]) + lines[call.lineno - 1][: call.col_offset]
    tail = lines[call.end_lineno - 1][call.end_col_offset :] + "".join(lines[call.end_lineno :])
    return head + text + tail


def _listed(transforms: tuple[Transform, ...]) -> dict[str, tuple[str, ...]]:
    values: dict[str, tuple[str, ...]] = {}
    for t in transforms:
        for name, listed in t.proven_values:
            values[name] = tuple(dict.fromkeys((*values.get(name, ()), *listed)))
    return values


def shape_cases(
    entries: list[SpecChange], old: str | None, new: str = sys.executable
) -> list[ShapeCase]:
    """Every variant of every call site in the entries' probes (one package), rewritten in each
    mode with a fix, and run: originals on `old` (when given) and `new`, rewrites on `new`,
    an interpreter whose build of the package the rewrites are made for."""
    sites: list[tuple[SpecChange, Finding, ast.Call]] = []
    for entry in entries:
        if entry.probe is None or entry.fix is None:
            continue
        tree = ast.parse(entry.probe.code)
        for f in findings_in_source(entry.probe.code, [entry], "<probe>"):
            call = _call_at(tree, f) if f.shape in ("call", "method") else None
            if call is not None:
                sites.append((entry, f, call))
    if not sites:
        return []
    symbols = sorted({f.symbol for _, f, _ in sites})
    package = sites[0][0].package
    builds = [signatures(new, symbols, package)] + (
        [signatures(old, symbols, package)] if old is not None else []
    )
    version = installed(new, package)
    if version is None:
        raise ValueError(f"{new} has no {package}")
    found: list[ShapeCase] = []
    originals: set[str] = set()
    for entry, f, call in sites:
        assert entry.probe is not None and entry.fix is not None
        code = entry.probe.code
        values = _listed((*entry.fix.keep_old, *entry.fix.adopt_new))
        shapes = [
            v
            for sigs in builds
            for v in variants(code, call, sigs.get(f.symbol, []), f.shape == "method", values)
        ]
        for variant in dict.fromkeys(shapes):  # the parameters of each build's signature
            at = f"__fz(lambda: {variant})"
            wrapped = _replace(code, call, at)
            here = [
                g
                for g in findings_in_source(wrapped, [entry], "<probe>")
                if g.line == f.line and g.symbol == f.symbol
            ]
            for mode in FIX_MODES:
                table = entry.fix.transforms(mode)
                if not table:
                    continue
                # a rewrite that needs another build is left alone (requires)
                done = rewrite_source(
                    wrapped,
                    here,
                    [entry],
                    mode,
                    min_confidence="low",
                    versions={entry.package: (version, version)},
                )
                if at in done.new_source or not done.applied:
                    kinds = (
                        ",".join(sorted({x.kind for x in done.left_alone})) or "not-matched"
                    )  # the matcher skips this shape
                    found.append(ShapeCase(entry.id, mode, f.symbol, variant, None, kinds))
                    continue
                line = next(
                    (ln.strip() for ln in done.new_source.splitlines() if "__fz(lambda:" in ln), "?"
                )
                index = table.index(done.applied[0].transform)
                originals.add(wrapped)
                found.append(
                    ShapeCase(
                        entry.id,
                        mode,
                        f.symbol,
                        variant,
                        line,
                        None,
                        index,
                        wrapped,
                        wrapped,
                        done.new_source,
                    )
                )
    rewrites = {c.rewrite_new for c in found if c.rewrite_new is not None}
    keyed = {f"s{i}": s for i, s in enumerate(sorted(originals | rewrites))}
    back = {s: k for k, s in keyed.items()}
    on_new = run(new, keyed)
    on_old = run(old, {back[s]: s for s in originals}) if old else {}
    result = []
    for c in found:
        if c.original_old is None or c.rewrite_new is None:
            result.append(c)
            continue
        key = back[c.original_old]
        result.append(
            ShapeCase(
                c.entry,
                c.mode,
                c.symbol,
                c.call,
                c.rewritten,
                None,
                c.transform,
                on_old.get(key),
                on_new.get(key),
                on_new.get(back[c.rewrite_new]),
            )
        )
    return result


def installed(python: str, package: str) -> Version | None:
    """The release of `package` that `python` has, or None when it has none."""
    try:
        done = subprocess.run(
            [python, "-c", f"from importlib.metadata import version; print(version({package!r}))"],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except OSError:
        return None
    return release(Version(done.stdout.strip())) if done.returncode == 0 else None


def shape_run(case: ShapeCase) -> ShapeRun:
    """A claimed (rewritten) shape as the probe stage reports it."""
    assert case.rewritten is not None
    before = case.original_old if case.original_old is not None else case.original_new
    status: Literal["ran", "raised", "differs", "unrun"]
    if case.status == "unrun" or case.rewrite_new is None:
        status = "unrun"
    elif case.raises:
        status = "raised"
    else:
        status = "ran" if case.rewrite_new == before else "differs"
    return ShapeRun(case.call, _unwrap(case.rewritten), before, case.rewrite_new, status)


def _unwrap(line: str) -> str:
    """The rewritten line without the wrapper the runs put around the call."""
    head, _, rest = line.partition("__fz(lambda: ")
    depth = 0
    for i, char in enumerate(rest):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return head + rest[:i] + rest[i + 1 :]
    return line


def shape_proof(
    entries: Sequence[SpecChange], old: str, new: str
) -> dict[tuple[str, FixMode], tuple[ShapeRun, ...]]:
    """`auditor probe` and `fix --probe`: per entry and `[fix]` table, every shape it claims,
    the original run by `old` (and `new`), the rewrite by `new` (`ProbeSettings.shapes`)."""
    found: dict[tuple[str, FixMode], list[ShapeRun]] = {}
    for package in sorted({e.package for e in entries}):
        chosen = [e for e in entries if e.package == package]
        for case in shape_cases(chosen, old, new):
            if case.rewritten is not None:
                found.setdefault((case.entry, case.mode), []).append(shape_run(case))
    return {key: tuple(runs) for key, runs in found.items()}
