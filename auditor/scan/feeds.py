"""What the project's modules pass each other's functions: parameters fed by callers elsewhere.

`def bucket(t): return t // 2` in utils.py says nothing of `t`; `bucket(torch.arange(5))` in
train.py does. A module's analysis yields its `Facts`: the calls it makes of other modules'
functions with the tags of their arguments (a literal None tagged too: a wrapper forwarding its
parameter to `torch.load(weights_only=...)` asks whether a call leaves it None, `values`), the functions it passes around as values, its own
module-level functions' parameters and which of those its analysis asked about. `index` joins
every module's facts: a parameter is fed a tag when every call in the project passes it a tensor
(the join of their tags), and LOCAL (a known other value) when one call passes anything else,
leaves it out or spreads `*args`, or the function is passed around where its calls are not seen.
The scan then analyses again, with what it is fed, each module that asked about such a
parameter.

Facts are plain data, kept in the scan cache with the module's findings: a module's facts
depend on its bytes alone, and what a module is fed is part of its second result's key, so an
edit to a caller re-analyses the callee and nothing else. Files the pre-filter skips
(mentioning no matched token) are not parsed, and their calls are not seen; a module that names
no matched module is analysed once another module passes its functions a tensor (`helpers`).
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from typing import Any

from auditor.scan.collect import NAME
from auditor.scan.modules import ProjectModules, absolute, package_of
from auditor.scan.names import Resolver
from auditor.scan.tags import DEFAULT_GIVEN, LOCAL, NONE_GIVEN, SET_GIVEN, Tag, is_tensor, merge

_LIBRARIES = frozenset(sys.stdlib_module_names) | {"builtins", "torch", "numpy", "np"}
Fed = dict[tuple[str, str], Tag]  # (function, parameter) -> tag


def _tag(tag: Tag | None) -> list[str | None] | None:
    return None if tag is None else list(tag)


_NONE = _tag(NONE_GIVEN)


@dataclass(frozen=True)
class Facts:
    """One module's side of the project index, as JSON-ready data."""

    # (callee's qualified name, ".m.f" for a relative import; positional tags; keyword tags; `*args`)
    calls: list[list[Any]] = field(default_factory=list)
    escapes: list[str] = field(default_factory=list)  # functions passed as values, qualified
    defines: dict[str, list[str]] = field(default_factory=dict)  # function -> positional parameters
    asked: list[list[str]] = field(default_factory=list)  # [function, parameter] pairs asked about
    exports: dict[str, str] = field(
        default_factory=dict
    )  # module-level name -> the matched call it is

    def data(self) -> list[Any]:
        return [self.calls, self.escapes, self.defines, self.asked, self.exports]

    @classmethod
    def of(cls, data: list[Any]) -> Facts:
        calls, escapes, defines, asked, exports = data
        return cls(calls, escapes, defines, asked, exports)


def facts(resolver: Resolver, tree: ast.Module, matched: Container[str] = ()) -> Facts:
    """What one analysed module passes other modules' functions, and what it defines. Of the
    parameters asked about, those its checks asked (the resolver's so far): typing the calls
    below may ask more, whose feeding would change only these facts, which a module analysed
    again with what it is fed does not make again. `matched`: the matched calls, of which the
    module's own names may be re-exports (`from torch import load as tload`)."""
    asked = sorted([list(pair) for pair in resolver.asked])
    module = resolver.scopes[tree]
    exports = {
        name: qualified for name, qualified in module.qualified.items() if qualified in matched
    }
    calls: list[list[Any]] = []
    importable, relative, stars, shadowed = (
        resolver.importable,
        resolver.relative,
        resolver.stars,
        resolver.shadowed,
    )
    # What a root name stands for, per scope: most calls go through a few imported names
    bases: dict[tuple[int, str], str | None] = {}
    for site in resolver.call_sites:
        node: Any = site[1]
        root = node.func
        while root.__class__ is ast.Attribute:
            root = root.value
        if root.__class__ is not ast.Name or not (
            stars or root.id in importable or root.id in relative
        ):
            continue  # a local function, a method of a local value: no other module's
        scope = site[2][0]
        memo = (id(scope), root.id)
        base = (
            bases[memo]
            if memo in bases and id(root) not in shadowed
            else _base(resolver, root, scope, bases)
        )
        if base is None:
            continue
        callee = _dotted(base, node.func)
        if callee is None:
            continue
        # a literal None is NONE_GIVEN, for a wrapper's parameter forwarded to a keyword (`values`)
        positional = [
            _NONE
            if a.__class__ is ast.Constant and a.value is None
            else _tag(resolver.tag(a, scope))
            for a in node.args
            if a.__class__ is not ast.Starred
        ]
        keywords = [
            [
                k.arg,
                _NONE
                if k.value.__class__ is ast.Constant and k.value.value is None
                else _tag(resolver.tag(k.value, scope)),
            ]
            for k in node.keywords
            if k.arg
        ]
        spread = len(positional) < len(node.args) or any(k.arg is None for k in node.keywords)
        calls.append([callee, positional, keywords, spread])
    defines = {
        name: [a.arg for a in (*function.args.posonlyargs, *function.args.args)]  # type: ignore[attr-defined]
        for name, function in module.functions.items()
    }
    return Facts(calls, _escapes(resolver, bases), defines, asked, exports)


def _escapes(resolver: Resolver, bases: dict[tuple[int, str], str | None]) -> list[str]:
    """The other modules' functions this one passes around as values: at each site of a name
    used other than by calling it (`referenced`) that is imported or relatively imported."""
    referenced, importable, relative = resolver.referenced, resolver.importable, resolver.relative
    names = {n for n in referenced if n in importable or n in relative}
    if not names:
        return []
    escapes: set[str] = set()
    if resolver.shadowed:  # a name caught by `except E as name` is not itself at every site
        for site in resolver.sites:
            if site[0] == NAME and site[1].id in names:  # type: ignore[attr-defined]
                base = _base(resolver, site[1], site[2][0], bases)  # type: ignore[arg-type]
                if base is not None and "." in base.lstrip("."):
                    escapes.add(base)
        return sorted(escapes)
    for scope in resolver.scopes.values():
        for name in names & scope.reads:
            memo = (id(scope), name)
            base = (
                bases[memo]
                if memo in bases
                else _base(resolver, ast.Name(name, ast.Load()), scope, bases)
            )
            if base is not None and "." in base.lstrip("."):
                escapes.add(base)
    return sorted(escapes)


def _base(
    resolver: Resolver, root: ast.Name, scope: Any, bases: dict[tuple[int, str], str | None]
) -> str | None:
    """The qualified name a root name has when it may be another module's of the project: it
    is imported (not from a library) or from a relative import (`.m.f`); noted in `bases`
    unless this one reading is shadowed (the exception caught, inside its handler)."""
    base = resolver.qualified(root, scope)  # memoised per scope and name
    if base is None:
        if root.id not in resolver.relative or _shadowed(root.id, scope):
            base = None
        else:
            base = resolver.relative[root.id]
    elif base.split(".", 1)[0] in _LIBRARIES:
        base = None
    if id(root) not in resolver.shadowed:
        bases[id(scope), root.id] = base
    return base


def _dotted(base: str, func: ast.expr) -> str | None:
    """`base` with the attributes of the chain `func` on its root name; None for a bare name."""
    attrs: list[str] = []
    while func.__class__ is ast.Attribute:
        attrs.append(func.attr)
        func = func.value
    qualified = ".".join([base, *reversed(attrs)]) if attrs else base
    return qualified if "." in qualified.lstrip(".") else None


def _shadowed(name: str, scope: Any) -> bool:
    """Whether an inner scope binds `name` itself (the module's relative import is not seen)."""
    while scope.parent is not None:
        if scope.binds(name):
            return True
        scope = scope.parent
    return False


# --- the project index -----------------------------------------------------------------------


def _absolute(callee: str, relative: str) -> str | None:
    """A relative import's `.m.f` (or `..f`) as seen from the module at `relative`."""
    level = len(callee) - len(callee.lstrip("."))
    return absolute(package_of(relative), callee[level:], level)


def index(project: Mapping[str, Facts], modules: ProjectModules) -> dict[str, Fed]:
    """Relative path -> what the project's other modules feed its functions' parameters (of
    the functions whose parameters some module's analysis asked about: no other is wanted).
    `modules` finds the file of a called function's module (`ProjectModules.find`: beside the
    calling file first, else the one file of the project whose path ends so)."""
    seen: dict[str, dict[tuple[str, str], list[Tag | None]]] = {}
    # (callee, caller's folder) -> the module's file and the function's name; the module's file
    # is not a dependency of the caller's result (what a module is fed is in its second key)
    targets: dict[tuple[str, str], tuple[str | None, str]] = {}
    files: dict[tuple[str, str], str | None] = {}  # (module, near) -> its file
    asked = {function for found in project.values() for function, _ in found.asked}

    def target(callee: str, caller: str) -> tuple[str, str] | None:
        if callee.rpartition(".")[2] not in asked:
            return (
                None  # only a function some module asked about can be fed: no lookup for the rest
            )
        folder = caller.rpartition("/")[0]
        found = targets.get((callee, folder))
        if found is None:
            qualified = _absolute(callee, caller)  # None: the dots climb above the scanned folder
            module, _, function = (qualified or "").rpartition(".")
            near = "" if callee.startswith(".") else folder  # a relative import is exact
            if qualified and (module, near) not in files:
                files[module, near] = modules.locate(module, near)
            found = targets[callee, folder] = (files[module, near] if qualified else None), function
        path, function = found
        if (
            path is None
            or path == caller
            or path not in project
            or function not in project[path].defines
        ):
            return None
        return path, function

    poisoned: set[tuple[str, str]] = set()
    left: set[tuple[str, str, str]] = set()  # (path, function, parameter) some call leaves out
    for caller, found in project.items():
        for callee in found.escapes:
            hit = target(callee, caller)
            if hit is not None:
                poisoned.add(hit)
        for callee, positional, keywords, spread in found.calls:
            hit = target(callee, caller)
            if hit is None:
                continue
            if spread:
                poisoned.add(hit)
                continue
            path, function = hit
            params = project[path].defines[function]
            given = {**dict(zip(params, positional)), **dict(keywords)}
            into = seen.setdefault(path, {})
            for param in params:
                raw = given.get(param)
                into.setdefault((function, param), []).append(Tag(*raw) if raw else None)
                if param not in given:
                    left.add((path, function, param))  # to its default
    fed: dict[str, Fed] = {}
    for path, fed_params in seen.items():
        asked_here = {(f, p) for f, p in project[path].asked}
        for (function, param), tags in fed_params.items():
            if (path, function) not in poisoned and (function, param + "=") in asked_here:
                fed.setdefault(path, {})[function, param + "="] = (
                    NONE_GIVEN
                    if NONE_GIVEN in tags
                    else DEFAULT_GIVEN
                    if (path, function, param) in left
                    else SET_GIVEN
                )
            if (path, function) in poisoned or not all(is_tensor(t) for t in tags):
                tag = LOCAL
            else:
                tag = tags[0] or LOCAL
                for other in tags[1:]:
                    tag = merge(tag, other) or LOCAL
            fed.setdefault(path, {})[function, param] = tag
    return fed


def helpers(project: Mapping[str, Facts], modules: ProjectModules, unread: set[str]) -> set[str]:
    """Of the modules `unread` (read, not analysed: they name no matched module), those whose
    functions an analysed module passes a tensor: their analysis may ask about the parameter.
    Only the first such link is followed (a helper's own calls pass on nothing it is fed)."""
    found: set[str] = set()
    for caller, facts_ in project.items():
        folder = caller.rpartition("/")[0]
        for callee, positional, keywords, _ in facts_.calls:
            tags = [*positional, *(tag for _, tag in keywords)]
            if not any(raw and is_tensor(Tag(*raw)) for raw in tags):
                continue
            qualified = _absolute(callee, caller)
            module = (qualified or "").rpartition(".")[0]
            path = (
                modules.locate(module, "" if callee.startswith(".") else folder) if module else None
            )
            if path in unread:
                found.add(path)
    return found


def reexports(project: Mapping[str, Facts], modules: ProjectModules) -> dict[str, str]:
    """The project's names for matched calls (`mypkg.io.tload`, and `mypkg.tload` where the
    package's `__init__` imports it from there) -> the matched call. A module's own names come
    from its facts: those a package's `__init__` binds, and those imported under another name
    (a module that imports `CrossEntropyLoss` for its own use is not where others get it); a
    package's `__init__`, which may name no matched module, is read for what it imports from
    its modules."""
    found: dict[str, str] = {}
    for relative, module_facts in project.items():
        if module_facts.exports and relative.endswith(".py"):
            dotted = _dotted_module(relative)
            is_init = relative.endswith("__init__.py")
            found.update(
                {
                    f"{dotted}.{name}" if dotted else name: q
                    for name, q in module_facts.exports.items()
                    if is_init or name != q.rpartition(".")[2]
                }
            )
    packages = sorted({p for alias in found for p in _packages(alias)}, key=lambda p: -p.count("."))
    for (
        package
    ) in packages:  # the innermost first: an outer `__init__` may import from an inner one
        init = modules.locate(package)
        table = modules.table(init) if init is not None and init.endswith("__init__.py") else None
        if table is not None:
            for name, imported in table.imported.items():
                if imported in found and name not in table.ambiguous:
                    found.setdefault(f"{package}.{name}", found[imported])
    return {alias: q for alias, q in found.items() if "." in alias}


def _dotted_module(relative: str) -> str:
    parts = relative[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _packages(alias: str) -> list[str]:
    """The packages above the module of `alias` (`a.b.c.name`: `a.b`, `a`)."""
    parts = alias.split(".")[:-2]
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]


def wanted(fed: Fed, found: Facts) -> Fed:
    """The tensors a module is fed for the parameters its analysis asked about (empty: a
    second analysis would find what the first did), and for those asked as (function,
    parameter + "="), whether a call elsewhere leaves them None. A parameter some other module
    passes something other than a tensor is not fed a tensor, and is left to what its own
    module's calls say."""
    asked = {(f, p) for f, p in found.asked}
    return {
        key: tag
        for key, tag in fed.items()
        if key in asked and (is_tensor(tag) or key[1].endswith("="))
    }


def digest(fed: Fed) -> bytes:
    """What a module is fed, for its result's cache key."""
    return hashlib.sha256(
        json.dumps(sorted([f, p, list(t)] for (f, p), t in fed.items())).encode()
    ).digest()
