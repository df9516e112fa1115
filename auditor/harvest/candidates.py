"""The candidate changes between two consecutive releases, each with its evidence."""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import replace

from auditor.harvest.guards import simplify
from auditor.harvest.model import (
    HIDDEN,
    RESOLVED,
    UNKNOWN_DEFAULT,
    Candidate,
    Evidence,
    Param,
    Release,
    Site,
    Symbol,
)
from auditor.harvest.surface import is_private

KINDS = (
    "symbol-removed",
    "parameter-removed",
    "parameter-renamed",
    "default-changed",
    "deprecation-begins",
    "warning-category-changed",
    "removal-stub-added",
)
_ERRORS = ("stub", "expired")


def candidate_id(
    package: str,
    release: str,
    kind: str,
    symbol: str,
    parameter: str | None = None,
    guard: str | None = None,
) -> str:
    """Stable across runs: it names what changed, never a line number or a message."""
    parts = [f"{package}@{release}", kind, symbol]
    if parameter:
        parts.append(parameter)
    if guard:
        parts.append(hashlib.sha1(guard.encode()).hexdigest()[:8])
    return ":".join(parts)


def inherited(name: str, surface: dict[str, Symbol], classes: dict[str, Symbol]) -> Symbol | None:
    """What `name` (Owner.member) still reaches when it is not on the surface: a base class's own
    symbol, or a stand-in for a class-level field or a module's plain binding (an import). `classes`
    maps a class's origin to one public symbol of it."""
    owner, _, member = name.rpartition(".")
    cls = surface.get(owner)
    if cls is None or cls.kind not in ("class", "module"):
        return None
    if member in cls.fields:
        return Symbol(
            name, "attribute", cls.file, cls.line, cls.source, (), f"{cls.origin}.{member}"
        )
    for base in cls.bases:
        public = classes.get(base)
        if public is None:
            continue
        found = surface.get(f"{public.name}.{member}")
        if found is not None:
            return found
        if member in public.fields:
            return Symbol(
                name, "attribute", public.file, public.line, public.source, (), f"{base}.{member}"
            )
    return None


def class_origins(surface: dict[str, Symbol]) -> dict[str, Symbol]:
    out: dict[str, Symbol] = {}
    for s in surface.values():
        if s.kind == "class":
            out.setdefault(s.origin, s)
    return out


def compare(old: Release, new: Release) -> list[Candidate]:
    before, after = old.by_name(), new.by_name()
    classes = class_origins(after)
    reached = after | {
        name: found
        for name, s in before.items()
        if name not in after and (found := inherited(name, after, classes)) is not None
    }
    out: list[Candidate] = []
    out += _removed(old, new, before, after, reached)
    after = reached
    out += _parameters(old, new, before, after)
    out += _deprecations(old, new)
    unique = {c.id: c for c in out if not is_private(c.symbol)}  # `__all__` may list `_name`s
    return sorted(unique.values(), key=lambda c: (KINDS.index(c.kind), c.symbol, c.id))


def _leaked(symbol: Symbol, surface: dict[str, Symbol]) -> bool:
    """A name a plain module imported from elsewhere (`from torch._overrides import
    handle_torch_function` in torch/functional.py): not API, unlike a package's re-exports."""
    module = surface.get(symbol.name.rsplit(".", 1)[0])
    if (
        module is None
        or module.kind != "module"
        or module.file.endswith(("__init__.py", "__init__.pyi"))
    ):
        return False
    return not symbol.origin.startswith(module.name + ".")


def _known(symbol: Symbol, new: Release) -> bool:
    """Whether `new` could show the symbol: a stub's signatures are unknown when it lacks the stub."""
    return symbol.source == "py" or symbol.source in new.stubs


def _removed(
    old: Release,
    new: Release,
    before: dict[str, Symbol],
    after: dict[str, Symbol],
    reached: dict[str, Symbol],
) -> list[Candidate]:
    """`reached`: `after` and what users still reach through bases and module bindings. A name off
    the surface that a module still binds (an import) is not removed, and neither are its
    members: what it is now is defined elsewhere, with its own candidates."""
    absent = [s for name, s in before.items() if name not in after and _known(s, new)]
    gone_names = {s.name for s in absent}
    gone = [s for s in absent if not _leaked(s, before) and s.name not in reached]
    owners = {s.name: s for s in after.values() if s.kind == "class" and s.dynamic}
    errors = {s.symbol for s in new.sites if s.kind in _ERRORS} | {
        s.symbol for s in new.sites if s.kind == "getattr"
    }
    out = []
    for s in gone:
        parent = s.name.rsplit(".", 1)[0]
        if parent in gone_names or s.name in errors:
            continue  # reported with its module or class, or by the stub that replaced it
        owner = owners.get(parent)
        waived = (
            None
            if owner is None
            else (f"in {new.version}, {parent} {owner.dynamic}: the member may still be reached")
        )
        out.append(
            Candidate(
                candidate_id(new.package, new.version, "symbol-removed", s.name),
                new.package,
                old.version,
                new.version,
                "symbol-removed",
                s.name,
                f"{s.kind} defined in {old.version}, absent from {new.version}",
                evidence=(
                    Evidence(old.version, s.file, s.line, f"{s.kind} {s.name} defined here"),
                ),
                symbol_kind=s.kind,
                waived=waived,
            )
        )
    return out


def _parameters(
    old: Release, new: Release, before: dict[str, Symbol], after: dict[str, Symbol]
) -> list[Candidate]:
    out: list[Candidate] = []
    for name, a in before.items():
        b = after.get(name)
        if b is None or not a.params or b.kind == "attribute" or a.kind == "attribute":
            continue
        if b.kind == "class" and not b.params and b.bases:
            continue  # no constructor of its own: `__init__` now comes from a base (MSELoss from _Loss in 2.10)
        kinds = {p.kind for p in b.params}
        if "var-keyword" in kinds and a.source != b.source:
            continue
        # `*args, **kwargs` bind every call the old signature did: a parameter they absorb is not gone
        absorbs = {"var-positional", "var-keyword"} <= kinds
        old_names = [p.name for p in a.params]
        new_by_name = {p.name: p for p in b.params}

        def evidence(
            detail: str, a: Symbol = a, b: Symbol = b, name: str = name
        ) -> tuple[Evidence, ...]:
            return (
                Evidence(old.version, a.file, a.line, f"{name}{_signature(a)}"),
                Evidence(new.version, b.file, b.line, f"{name}{_signature(b)}; {detail}"),
            )

        for index, p in enumerate(a.params):
            if (
                p.kind in ("var-positional", "var-keyword")
                or p.name.startswith("_")
                or p.name == "self"
            ):
                continue
            q = new_by_name.get(p.name)
            if q is None and (absorbs or _tensor_option(p.name, a, b)):
                continue
            if q is None:
                renamed = None
                # a new name in the same place, after the same parameters; a private one, or one
                # after a reshuffle (MultiprocessContext's stdouts, stderrs, ... -> logs_specs), is none
                if (
                    index < len(b.params)
                    and [q.name for q in b.params[:index]] == old_names[:index]
                ):
                    r = b.params[index]
                    if r.name not in old_names and r.kind == p.kind and not r.name.startswith("_"):
                        renamed = r.name
                kind = "parameter-renamed" if renamed else "parameter-removed"
                detail = (
                    f"{p.name} renamed to {renamed}" if renamed else f"parameter {p.name} removed"
                )
                out.append(
                    Candidate(
                        candidate_id(new.package, new.version, kind, name, p.name),
                        new.package,
                        old.version,
                        new.version,
                        kind,
                        name,
                        detail,
                        parameter=p.name,
                        evidence=evidence(detail),
                        symbol_kind=a.kind,
                        params=a.params,
                    )
                )
            elif (
                p.default != q.default
                and p.default is not None
                and q.default is not None
                and UNKNOWN_DEFAULT not in (p.default, q.default)
                and a.source == b.source
                and not p.default.endswith("...")
                and not q.default.endswith("...")
                and not same_value(p.default, q.default)
            ):
                detail = f"default of {p.name}: {p.default} -> {q.default}"
                waived = None
                if q.default == "None":
                    detail, waived = _sentinel(detail, p.default, p.name, b)
                out.append(
                    Candidate(
                        candidate_id(new.package, new.version, "default-changed", name, p.name),
                        new.package,
                        old.version,
                        new.version,
                        "default-changed",
                        name,
                        detail,
                        parameter=p.name,
                        evidence=evidence(detail),
                        symbol_kind=a.kind,
                        params=b.params,
                        waived=waived,
                    )
                )
    return out


# The Python arg parser reads a C factory's TensorOptions together: 1.10.0's library compiles
# `linspace(..., Layout layout=torch.strided, Device device=None, bool pin_memory=False)`, while its
# stub names neither layout nor pin_memory.
_TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


def _tensor_option(parameter: str, old: Symbol, new: Symbol) -> bool:
    """Whether a stub leaves out a TensorOptions parameter of a factory that keeps the others."""
    return (
        old.source != "py"
        and new.source != "py"
        and parameter in _TENSOR_OPTIONS
        and any(p.name in _TENSOR_OPTIONS for p in new.params)
    )


# A stub's `= None` that the C++ signature behind it resolves to the old default (the Python arg
# parser passes None on as an empty optional): (parameter, old default) -> what None means there.
NATIVE_NONES = {
    ("layout", "strided"): "Layout? layout=None, which the factory resolves to torch.strided",
    ("min", "-inf"): "Scalar? min=None: no lower bound, as -inf was",
    ("max", "inf"): "Scalar? max=None: no upper bound, as inf was",
    ("dim", "()"): "int[1]? dim=None: every dimension, as () was",
}


def _sentinel(detail: str, old: str, parameter: str, new: Symbol) -> tuple[str, str | None]:
    """A new default of None read against the body (or the native signature) that gives it a
    value: the detail to show, and the waiver's reason when the value is the old default."""
    put = next(((value, line) for name, value, line in new.resolved if name == parameter), None)
    if put is not None:
        value, line = put
        other = next((p for p in new.params if p.name == value and p.default is not None), None)
        if other is not None:  # `allow_unused = materialize_grads`: that parameter's default
            value = other.default or value
        if value == old or same_value(old, value) or _same_name(old, value):
            return (
                detail,
                f"the body resolves None to the old default ({parameter} = {value}, {new.file}:{line})",
            )
        if not _plain_value(value, new.params):
            return f"{detail} (None becomes {value}, {new.file}:{line}: {HIDDEN})", None
        return f"{detail} {RESOLVED}{value} in for None, {new.file}:{line})", None
    native = NATIVE_NONES.get((parameter, old))
    if new.source != "py" and native is not None:
        return detail, f"stub default only: the C++ signature is {native} ({new.file}:{new.line})"
    return detail, None


def _plain_value(text: str, params: tuple[Param, ...]) -> bool:
    """A literal or a module-level name (`4`, `BackendType.TENSORPIPE`): the same for every call
    that leaves the parameter out. A call, a condition, another argument or `self` is not: what the
    call gets depends on what the scanner cannot see (`_get_default_timeout(backend)`)."""
    try:
        ast.literal_eval(text)
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    head = text.split(".")[0]
    return (
        all(part.isidentifier() for part in text.split("."))
        and head != "self"
        and head not in {p.name for p in params}
    )


def _same_name(old: str, new: str) -> bool:
    """`default_collate` and `_utils.collate.default_collate`, `torch.float32` and
    `getattr(torch, 'float32', None)`: one name reached two ways."""
    got = re.fullmatch(r"getattr\((\w+(?:\.\w+)*), '(\w+)'(?:, [^)]*)?\)", new)
    if got:
        new = f"{got[1]}.{got[2]}"
    a, b = old.split("."), new.split(".")
    return all(part.isidentifier() for part in a + b) and a[-1] == b[-1]


def same_value(old: str, new: str) -> bool:
    """Two defaults that spell one value: `1` and `1.0`, `TrainingMode.EVAL` and
    `_C_onnx.TrainingMode.EVAL` (the same enum member reached another way), `Image.NEAREST` and
    `_pil_constants.NEAREST` (a constant re-exported by a private module of the package),
    `device('cuda')` and `'cuda'` (a device parameter takes either), `'relu'` and `F.relu` (a
    parameter that takes a function or its name)."""
    try:
        if ast.literal_eval(_device_text(old)) == ast.literal_eval(_device_text(new)):
            return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    if _names_function(old, new) or _names_function(new, old):
        return True
    a, b = old.split("."), new.split(".")
    if min(len(a), len(b)) < 2:
        return False
    if a[-2:] == b[-2:]:
        return True
    return (
        a[-1] == b[-1]
        and a[-1].isupper()
        and all(part.isidentifier() for part in a + b)
        and (a[-2].startswith("_") or b[-2].startswith("_"))
    )


def _names_function(text: str, dotted: str) -> bool:
    """`'relu'` and `F.relu`: a string literal that is the last part of a module's function name."""
    parts = dotted.split(".")
    return (
        len(parts) >= 2
        and all(part.isidentifier() for part in parts)
        and text in (repr(parts[-1]), f'"{parts[-1]}"')
    )


def _device_text(text: str) -> str:
    """The string a `device('cuda')` or `torch.device('cuda')` default names, else `text`."""
    got = re.fullmatch(r"(?:torch\.)?device\(('[^']*'|\"[^\"]*\")\)", text)
    return got[1] if got else text


def plain_sites(release: Release) -> list[Site]:
    """The release's sites with their guards simplified; a site whose guard never holds (a helper
    called with `emit_warning=False`) and a lazily imported submodule a `__getattr__` hook names
    (not a deprecated attribute) are left out."""
    symbols = release.by_name()
    out = []
    for s in release.sites:
        if s.kind == "getattr" and s.symbol in symbols and symbols[s.symbol].kind == "module":
            continue
        guard = simplify(s.guard) if s.guard is not None else True
        if guard is False:
            continue
        out.append(replace(s, guard=None if guard is True else guard))
    return out


def _deprecations(old: Release, new: Release) -> list[Candidate]:
    symbols = new.by_name()

    def about(c: Candidate, s: Site) -> Candidate:
        """`c` with what a matcher needs to know of the symbol: its kind, its parameters."""
        found = symbols.get(s.symbol)
        kind = found.kind if found else ("attribute" if s.kind in ("getattr", "expired") else None)
        return replace(
            c,
            symbol_kind=kind,
            conditional=s.conditional,
            params=found.params if found and s.guard else (),
        )

    def key(s: Site) -> tuple[str, str | None]:
        return (s.symbol, s.guard)

    before_sites, after_sites = plain_sites(old), plain_sites(new)
    old_sites: dict[tuple[str, str | None], Site] = {}
    for s in before_sites:
        old_sites.setdefault(key(s), s)
    old_symbols: dict[str, list[Site]] = {}
    for s in before_sites:
        old_symbols.setdefault(s.symbol, []).append(s)
    out: list[Candidate] = []
    seen: set[tuple[str, str | None]] = set()
    for s in after_sites:
        if key(s) in seen:
            continue
        seen.add(key(s))
        evidence = (
            Evidence(new.version, s.file, s.line, s.message + (f" (via {s.via})" if s.via else "")),
        )
        earlier = old_sites.get(key(s))
        before_error = any(o.kind in _ERRORS for o in old_symbols.get(s.symbol, []))
        if s.kind in _ERRORS:
            if before_error:
                continue
            warned = old_symbols.get(s.symbol, [])
            detail = "now raises" + (f" (was {warned[0].category})" if warned else "")
            out.append(
                about(
                    Candidate(
                        candidate_id(new.package, new.version, "removal-stub-added", s.symbol),
                        new.package,
                        old.version,
                        new.version,
                        "removal-stub-added",
                        s.symbol,
                        detail,
                        category="error",
                        evidence=evidence,
                    ),
                    s,
                )
            )
        elif earlier is None:
            detail = f"{s.category}" + (f" when {s.guard}" if s.guard else "")
            out.append(
                about(
                    Candidate(
                        candidate_id(
                            new.package, new.version, "deprecation-begins", s.symbol, guard=s.guard
                        ),
                        new.package,
                        old.version,
                        new.version,
                        "deprecation-begins",
                        s.symbol,
                        detail,
                        guard=s.guard,
                        category=s.category,
                        evidence=evidence,
                    ),
                    s,
                )
            )
        elif earlier.category != s.category and earlier.kind not in _ERRORS:
            detail = f"{earlier.category} -> {s.category}"
            out.append(
                about(
                    Candidate(
                        candidate_id(
                            new.package,
                            new.version,
                            "warning-category-changed",
                            s.symbol,
                            guard=s.guard,
                        ),
                        new.package,
                        old.version,
                        new.version,
                        "warning-category-changed",
                        s.symbol,
                        detail,
                        guard=s.guard,
                        category=s.category,
                        evidence=(
                            Evidence(old.version, earlier.file, earlier.line, earlier.message),
                            *evidence,
                        ),
                    ),
                    s,
                )
            )
    return out


def _signature(s: Symbol) -> str:
    shown = []
    for p in s.params:
        prefix = {"var-positional": "*", "var-keyword": "**"}.get(p.kind, "")
        shown.append(prefix + p.name + (f"={p.default}" if p.default is not None else ""))
    return "(" + ", ".join(shown) + ")"
