"""Version guards: code that runs only where a package's version passes a test.

    if _TORCH_GREATER_EQUAL_1_10:
        return new_autocast(self.device)
    return old_autocast()

On a move from torch 1.12.1 to 2.6.0 the guard holds on both sides: `old_autocast()` never
runs, before or after, and whatever the move changes in it is no finding (`Guards.dead`).

A change released at X affects a line only if the line runs on some release before X and on
some release from X on, inside the move (`Guards.reaches`): under `if torch < 1.11:` a 2.0
change never reaches the line (on 1.10 -> 2.6 it runs on 1.10 only, where the old behaviour
holds); under `if torch >= 2.0:` a 1.13 change has already happened wherever it runs. The test
is read on every version a release could have between the ends (major.minor.micro), never
assumed monotone: `torch.__version__` compares as a string before 1.10. When the outcome is not
known, the code counts as running.

A generated removal of what first appeared after the old end (`SpecChange.since`: 1.13 removed
`torch.nested_tensor`, which only 1.12 had) changes nothing on 1.10 -> 2.15 for code that runs
at 1.10: it failed there too. It reaches only code known not to run at the old end that may run
from the removal on (`if torch >= 1.12:`), which the move makes fail where it did not run.

The walk (`collect`) notes, for each site, the tests it sits under and the outcome it needs:
the `if` (and `elif`, `else`) around it, an `if T: return` (or `raise`, `continue`, `break`)
earlier in the same block, the left operands of `and`/`or`, the test of a conditional
expression. `Guards.dead` reads a test only when a finding would be reported under it.

A test is read as far as it is a version comparison (`VersionReader`):

- `torch.__version__ >= "1.10"` (a `TorchVersion` from torch 1.10, compared as a version; a plain
  string before, and for other packages: compared as a string), `Version(torch.__version__)`,
  `packaging.version.parse(...)`, `LooseVersion(...)`, `.base_version`, `.release`,
  `torch.__version__.split("+")[0]`, `tuple(int(x) for x in torch.__version__.split(".")[:2])`,
  `tuple(map(int, ...[:2]))`, `importlib.metadata.version("torch")`, compared with a string, a
  tuple or a parsed version;
- `compare_version("torch", operator.ge, "1.10.0")` and `RequirementCache("torch>=1.10")`
  (Lightning's helpers);
- `hasattr(t, "names")`, where a crossed change removes that attribute of tensors (or arrays):
  true before its release, false from it (named tensors, gone in torch 2.13);
- `hasattr(nn.utils.parametrizations, "weight_norm")`, a module's public name whose presence
  changes between releases (`knowledge.presence`, from the shipped harvest): true on the releases
  that have it (torch 2.1.0 on);
- names bound to one of these at the top level of this module or of another module of the
  project (`modules.ProjectModules.constant`), `not`, `and`, `or`, chained comparisons.

An outcome is known only when it is the same for the plain release and for a local build of it
(`2.6.0+cu124`): `torch.__version__ > "2.6"` holds for the one and not the other.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from auditor.knowledge.presence import NOTHING, Presence
from auditor.scan.apis import PROBED_CLASSES
from auditor.scan.modules import Constant, ModuleTable, ProjectModules
from auditor.scan.scopes import Conditions, Scope, lookup
from auditor.scan.tagging import Tagger
from auditor.scan.tags import is_tensor

End = Mapping[str, Version]  # each moving package's version at one end of the transition

_MAX_DEPTH = 12
_TORCH_VERSION_CLASS = Version(
    "1.10"
)  # torch.__version__ compares as a version from 1.10 (TorchVersion)
_OPERATORS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.Gt,
    ast.LtE: ast.GtE,
    ast.Gt: ast.Lt,
    ast.GtE: ast.LtE,
    ast.Eq: ast.Eq,
    ast.NotEq: ast.NotEq,
}
_NAMED_OPERATORS = {
    f"operator.{name}": getattr(operator, name) for name in ("lt", "le", "gt", "ge", "eq", "ne")
}
_PARSERS = frozenset(
    {
        "packaging.version.parse",
        "packaging.version.Version",
        "pkg_resources.parse_version",
        "distutils.version.LooseVersion",
        "distutils.version.StrictVersion",
        "looseversion.LooseVersion",
        "torch.torch_version.TorchVersion",
        "torch.torch_version.Version",
    }
)
_METADATA = frozenset({"importlib.metadata.version", "importlib_metadata.version"})


@dataclass(frozen=True)
class _Version:
    """A package's version as the code holds it: `form` is "str" (compared as a string),
    "torch" (`torch.__version__` itself), "version" (a parsed version) or "tuple" (the first
    `length` parts as ints; 0: the whole release)."""

    package: str
    form: str
    length: int = 0


@dataclass(frozen=True)
class _Literal:
    value: object  # a str, a tuple of ints, or a Version


@dataclass(frozen=True)
class _Test:
    """A truth value that depends on the versions: True, False, or None (not known)."""

    outcome: Callable[[End], bool | None]


_Value = _Version | _Literal | _Test


class _Names:
    """How names read in one module resolve: here through the resolver (the test's scope), in
    another module of the project through its top-level table."""

    def __init__(
        self, table: ModuleTable, resolver: Tagger | None = None, scope: Scope | None = None
    ):
        self.table, self.resolver, self.scope = table, resolver, scope

    def qualified(self, expr: ast.expr) -> str | None:
        if self.resolver is not None and self.scope is not None:
            found = self.resolver.qualified(expr, self.scope)
            if found is None and isinstance(expr, ast.Name):
                return self._relative(
                    expr.id, self.scope
                )  # a relative import: the resolver keeps it local
            return found
        if isinstance(expr, ast.Name):
            return self.table.imported.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.qualified(expr.value)
            return f"{base}.{expr.attr}" if base else None
        return None

    def _relative(self, name: str, scope: Scope) -> str | None:
        """What `name` names when its one binding, at the top of the module or in a function, is a
        relative `from .m import name`."""
        owner = lookup(name, scope)
        bindings = owner.bindings.get(name, ()) if owner is not None else ()
        if owner is None or len(bindings) != 1:
            return None
        if owner.parent is None and name in self.table.imported:
            return self.table.imported[name]
        statement = bindings[0].target
        if not (isinstance(statement, ast.ImportFrom) and statement.level):
            return None
        module = self.table.absolute(statement.module, statement.level)
        found = [alias.name for alias in statement.names if (alias.asname or alias.name) == name]
        return f"{module}.{found[0]}" if module and len(found) == 1 else None

    def builtin(self, name: str) -> bool:
        """Whether `name` is the builtin here: bound neither where it is read nor at the top."""
        if self.resolver is not None and self.scope is not None:
            return lookup(name, self.scope) is None
        return name not in self.table.assigned and name not in self.table.imported

    def may_be_array(self, expr: ast.expr) -> bool:
        """Whether `expr` may be a tensor or array (or is their class): unless its type is known
        to be something else."""
        if self.qualified(expr) in PROBED_CLASSES:
            return True
        if self.resolver is None or self.scope is None:
            return True
        tag = self.resolver.tag(expr, self.scope)
        return tag is None or is_tensor(tag) or tag.kind == "ndarray"

    def constant(self, name: str) -> Constant | None:
        if name in self.table.ambiguous or name not in self.table.assigned:
            return None
        if self.scope is not None:
            owner = lookup(name, self.scope)
            if owner is None or owner.parent is not None or len(owner.bindings.get(name, ())) != 1:
                return None  # a local name, or one the module binds more than once
        return Constant(self.table.assigned[name], self.table)

    @property
    def near(self) -> str:
        return (self.table.relative or "").rpartition("/")[0]


class VersionReader:
    """What an expression is, as far as it is a package's version or a test of one."""

    def __init__(
        self,
        modules: ProjectModules | None,
        removed: Mapping[str, tuple[str, Version]] | None = None,
        presence: Presence = NOTHING,
    ):
        self.modules = modules
        self.removed = removed or {}  # tensor (array) attributes removed: name -> package, release
        self.presence = presence  # the public names of each release's modules

    def test(self, expr: ast.expr, names: _Names) -> _Test | None:
        value = self._read(expr, names, 0)
        return value if isinstance(value, _Test) else None

    def _read(self, expr: ast.expr, names: _Names, depth: int) -> _Value | None:
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, ast.Constant):
            return _Literal(expr.value) if isinstance(expr.value, str) else None
        if isinstance(expr, ast.Tuple):
            if all(isinstance(e, ast.Constant) and type(e.value) is int for e in expr.elts):
                return _Literal(tuple(e.value for e in expr.elts))  # type: ignore[attr-defined]
            return None
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            inner = self._read(expr.operand, names, depth + 1)
            return _not(inner) if isinstance(inner, _Test) else None
        if isinstance(expr, ast.BoolOp):
            parts = [self._read(v, names, depth + 1) for v in expr.values]
            tests = [p if isinstance(p, _Test) else _UNKNOWN for p in parts]
            if all(t is _UNKNOWN for t in tests):
                return None
            return _all(tests) if isinstance(expr.op, ast.And) else _any(tests)
        if isinstance(expr, ast.Compare):
            return self._compare(expr, names, depth)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return self._named(expr, names, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, names, depth)
        if isinstance(expr, ast.Subscript):  # torch.__version__.split("+")[0]
            value = expr.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "split"
                and _constant(value.args, 0) == "+"
                and isinstance(expr.slice, ast.Constant)
                and expr.slice.value == 0
            ):
                inner = self._read(value.func.value, names, depth + 1)
                if isinstance(inner, _Version) and inner.form in ("str", "torch"):
                    return _Version(inner.package, "str")
        return None

    def _named(self, expr: ast.Name | ast.Attribute, names: _Names, depth: int) -> _Value | None:
        qualified = names.qualified(expr)
        if qualified is not None:
            module, _, attribute = qualified.rpartition(".")
            if attribute == "__version__" and module:
                package = module.split(".")[0]
                return _Version(
                    canonicalize_name(package), "torch" if package == "torch" else "str"
                )
            if self.modules is not None:
                constant = self.modules.constant(qualified, names.near)
                if constant is not None:
                    return self._read(constant.value, _Names(constant.table), depth + 1)
            return None
        if isinstance(expr, ast.Name):
            constant = names.constant(expr.id)
            if constant is None:
                return None
            inner = names if constant.table is names.table else _Names(constant.table)
            return self._read(constant.value, inner, depth + 1)
        base = self._read(expr.value, names, depth + 1)
        if isinstance(base, _Version) and base.form == "version":
            if expr.attr in ("base_version", "public"):
                return _Version(base.package, "str")
            if expr.attr == "release":
                return _Version(base.package, "tuple")
        return None

    def _call(self, call: ast.Call, names: _Names, depth: int) -> _Value | None:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "tuple" and len(call.args) == 1:
            return self._int_parts(call.args[0], names, depth)
        if (
            isinstance(func, ast.Name)
            and func.id == "hasattr"
            and len(call.args) == 2
            and not call.keywords
        ):
            return self._feature(call.args[0], _constant(call.args, 1), names)
        qualified = names.qualified(func) or ""
        last = qualified.rpartition(".")[2]
        if qualified in _PARSERS and len(call.args) == 1:
            inner = self._read(call.args[0], names, depth + 1)
            if isinstance(inner, _Version) and inner.form in ("str", "torch"):
                return _Version(inner.package, "version")
            if isinstance(inner, _Literal) and isinstance(inner.value, str):
                try:
                    return _Literal(Version(inner.value))
                except InvalidVersion:
                    return None
            return None
        package = _constant(call.args, 0)
        if qualified in _METADATA and isinstance(package, str):
            return _Version(canonicalize_name(package), "str")
        if (
            last in ("compare_version", "_compare_version")
            and len(call.args) >= 3
            and isinstance(package, str)
        ):
            op = _NAMED_OPERATORS.get(names.qualified(call.args[1]) or "")
            bound = _constant(call.args, 2)
            if op is None or not isinstance(bound, str):
                return None
            try:
                parsed = Version(bound)
            except InvalidVersion:
                return None
            wanted = canonicalize_name(package)
            return _Test(lambda end: _robust(end, wanted, lambda text: op(Version(text), parsed)))
        if last == "RequirementCache" and isinstance(package, str):
            try:
                requirement = Requirement(package)
            except InvalidRequirement:
                return None
            wanted, specifier = canonicalize_name(requirement.name), requirement.specifier
            return _Test(
                lambda end: _robust(
                    end, wanted, lambda text: specifier.contains(text, prereleases=True)
                )
            )
        return None

    def _feature(self, subject: ast.expr, attribute: object, names: _Names) -> _Value | None:
        """`hasattr(t, "names")`, where a crossed change removes the tensor attribute `names`
        (torch 2.13): true before that release, false from it, for a tensor or the class
        itself. A subject known to be something else (a module, a number), or a `hasattr`
        that is not the builtin, is not read; one of unknown type is taken for a tensor, as
        the test is written for one.

        `hasattr(nn.utils.parametrizations, "weight_norm")`, on a module whose public names
        change (`presence`): true on the releases that have it (torch 2.1.0 on)."""
        if not isinstance(attribute, str) or not names.builtin("hasattr"):
            return None
        module = names.qualified(subject)
        name = f"{module}.{attribute}"
        if module is not None and self.presence.known(name):
            owner, presence = canonicalize_name(module.split(".", 1)[0]), self.presence
            return _Test(
                lambda end: _robust(end, owner, lambda text: presence.present(name, Version(text)))
            )
        found = self.removed.get(attribute)
        if found is None or not names.may_be_array(subject):
            return None
        package, release = found
        return _Test(lambda end: _robust(end, package, lambda text: Version(text) < release))

    def _int_parts(self, source: ast.expr, names: _Names, depth: int) -> _Value | None:
        """`tuple(int(x) for x in V.split(".")[:n])` and `tuple(map(int, V.split(".")[:n]))`."""
        if isinstance(source, (ast.GeneratorExp, ast.ListComp)) and len(source.generators) == 1:
            element, iterated = source.elt, source.generators[0].iter
            if not (
                isinstance(element, ast.Call)
                and isinstance(element.func, ast.Name)
                and element.func.id == "int"
            ):
                return None
        elif (
            isinstance(source, ast.Call)
            and isinstance(source.func, ast.Name)
            and source.func.id == "map"
            and len(source.args) == 2
            and isinstance(source.args[0], ast.Name)
            and source.args[0].id == "int"
        ):
            iterated = source.args[1]
        else:
            return None
        if not (isinstance(iterated, ast.Subscript) and isinstance(iterated.slice, ast.Slice)):
            return None
        window, split = iterated.slice, iterated.value
        if (
            window.lower is not None
            or window.step is not None
            or not isinstance(window.upper, ast.Constant)
        ):
            return None
        length = window.upper.value
        if not (
            type(length) is int
            and length > 0
            and isinstance(split, ast.Call)
            and isinstance(split.func, ast.Attribute)
            and split.func.attr == "split"
            and _constant(split.args, 0) == "."
        ):
            return None
        inner = self._read(split.func.value, names, depth + 1)
        if isinstance(inner, _Version) and inner.form in ("str", "torch"):
            return _Version(inner.package, "tuple", length)
        return None

    def _compare(self, expr: ast.Compare, names: _Names, depth: int) -> _Test | None:
        tests: list[_Test] = []
        left = self._read(expr.left, names, depth + 1)
        for op, right_node in zip(expr.ops, expr.comparators):
            right = self._read(right_node, names, depth + 1)
            test = _comparison(left, op, right)
            tests.append(test if test is not None else _UNKNOWN)
            left = right
        if all(t is _UNKNOWN for t in tests):
            return None
        return _all(tests)


def _constant(args: Sequence[ast.expr], index: int) -> object:
    if index < len(args) and isinstance(args[index], ast.Constant):
        return args[index].value  # type: ignore[attr-defined]
    return None


_UNKNOWN = _Test(lambda end: None)


def _not(test: _Test) -> _Test:
    def outcome(end: End) -> bool | None:
        value = test.outcome(end)
        return None if value is None else not value

    return _Test(outcome)


def _all(tests: Sequence[_Test]) -> _Test:
    def outcome(end: End) -> bool | None:
        values = [t.outcome(end) for t in tests]
        if False in values:
            return False
        return None if None in values else True

    return _Test(outcome)


def _any(tests: Sequence[_Test]) -> _Test:
    def outcome(end: End) -> bool | None:
        values = [t.outcome(end) for t in tests]
        if True in values:
            return True
        return None if None in values else False

    return _Test(outcome)


def _comparison(left: _Value | None, op: ast.cmpop, right: _Value | None) -> _Test | None:
    if type(op) not in _OPERATORS:
        return None  # `in`, `is`: not an order of versions
    if isinstance(left, _Literal) and isinstance(right, _Version):
        left, right, op = right, left, _FLIPPED[type(op)]()
    if not (isinstance(left, _Version) and isinstance(right, _Literal)):
        return None
    compare = _OPERATORS[type(op)]
    version, bound = left, right.value

    def outcome(end: End) -> bool | None:
        return _robust(end, version.package, lambda text: _one(version, text, compare, bound))

    return _Test(outcome)


def _robust(end: End, package: str, evaluate: Callable[[str], object]) -> bool | None:
    """The outcome for the package's release at this end, when a local build of it (`+cu124`)
    gives the same; None when they differ, the package is not moving, or the test fails."""
    version = end.get(package)
    if version is None:
        return None
    outcomes = set()
    for text in (version.public, f"{version.public}+local"):
        try:
            value = evaluate(text)
        except (TypeError, ValueError, InvalidVersion):
            return None
        if not isinstance(value, bool):
            return None
        outcomes.add(value)
    return outcomes.pop() if len(outcomes) == 1 else None


def _one(version: _Version, text: str, compare: Callable[[Any, Any], Any], bound: object) -> object:
    """The comparison as the code runs it, with the version spelled `text`."""
    form = version.form
    if form == "torch":
        form = "version" if Version(text) >= _TORCH_VERSION_CLASS else "str"
        if form == "version" and not isinstance(
            bound, Version
        ):  # TorchVersion parses the other side
            bound = Version(".".join(map(str, bound)) if isinstance(bound, tuple) else str(bound))
    if form == "str":
        return compare(text, bound) if isinstance(bound, str) else None
    if form == "version":
        return compare(Version(text), bound) if isinstance(bound, Version) else None
    if not isinstance(bound, tuple):
        return None
    if version.length:
        return compare(tuple(int(part) for part in text.split(".")[: version.length]), bound)
    return compare(Version(text).release, bound)


class Guards:
    """Whether code under some conditions runs where a change could show.

    `dead`: at every end of the transition some condition is known not to hold. `reaches`: the
    code runs on some release before the change's and on some release from it on, inside the
    transition (between the two ends of the package's move); code that runs only on one side of
    the change never sees it change."""

    def __init__(
        self,
        ends: Sequence[End],
        resolver: Tagger,
        table: Callable[[], ModuleTable],
        modules: ProjectModules | None = None,
        removed: Mapping[str, tuple[str, Version]] | None = None,
        presence: Presence = NOTHING,
    ):
        self.ends = tuple(ends)
        self.resolver = resolver
        self._table = table
        self._module: ModuleTable | None = None
        self.reader = VersionReader(modules, removed, presence)
        self._readings: dict[int, _Test | None] = {}
        self._outcomes: dict[int, tuple[bool | None, ...]] = {}

    def _reading(self, test: ast.expr, scope: Scope) -> _Test | None:
        if id(test) not in self._readings:
            if self._module is None:
                self._module = self._table()
            self._readings[id(test)] = self.reader.test(
                test, _Names(self._module, self.resolver, scope)
            )
        return self._readings[id(test)]

    def _outcome(self, test: ast.expr, scope: Scope) -> tuple[bool | None, ...]:
        found = self._outcomes.get(id(test))
        if found is None:
            reading = self._reading(test, scope)
            found = tuple(reading.outcome(end) if reading else None for end in self.ends)
            self._outcomes[id(test)] = found
        return found

    def dead(self, conditions: Conditions) -> bool:
        """True when, at every end, some condition is known not to hold."""
        if not self.ends or not conditions:
            return False
        outcomes = [(self._outcome(test, scope), wanted) for test, wanted, scope in conditions]
        return all(
            any(outcome[end] is (not wanted) for outcome, wanted in outcomes)
            for end in range(len(self.ends))
        )

    def reaches(
        self,
        conditions: Conditions,
        package: str,
        introduced: Version,
        since: Version | None = None,
    ) -> bool:
        """False when, in every move of `package` across `introduced`, the code is known not to run
        on any release before it, or on any release from it on (`if torch < 1.11:` and a 2.0
        change; `if torch >= 2.0:` and a 1.13 change). Only the conditions' known outcomes count:
        an unknown one may let the code run.

        `since`: the change removes what first appeared in that release. From an old end before
        it, code that ran there failed there as it does after the removal: only code known not to
        run at the old end that may run from the change on meets it (`if torch >= 1.12:` around
        `torch.nested_tensor`, on 1.10 -> 2.15); unguarded code does not."""
        if not self.ends or len(self.ends) % 2:
            return True
        readings = [(self._reading(test, scope), wanted) for test, wanted, scope in conditions]
        if since is None and all(reading is None for reading, _ in readings):
            return True
        for old, new in zip(self.ends[::2], self.ends[1::2], strict=True):
            if package not in old or package not in new:
                return True
            low, high = sorted((old[package], new[package]))
            if not low < introduced <= high:
                return True  # the change is not crossed by this move: nothing to say
            after = [v for v in _releases(low, high) if v >= introduced]
            if since is not None and Version(old[package].public) < since:
                if not _may_run(readings, (old,), package, [old[package]]) and _may_run(
                    readings, (old, new), package, after
                ):
                    return True
                continue
            before = [v for v in _releases(low, high) if v < introduced]
            if _may_run(readings, (old, new), package, before) and _may_run(
                readings, (old, new), package, after
            ):
                return True
        return False


@lru_cache(maxsize=64)
def _releases(low: Version, high: Version) -> tuple[Version, ...]:
    """Every version a release of the package could have between `low` and `high` (both kept):
    each major.minor.micro up to minor 40 and micro 9, or the ends' own if higher. A real release
    is among them; a version that never was released only keeps a finding."""
    minors = max(40, low.minor, high.minor) + 1
    micros = max(9, low.micro, high.micro) + 1
    grid = {low, high}
    for major in range(low.major, high.major + 1):
        for minor in range(minors):
            for micro in range(micros):
                v = Version(f"{major}.{minor}.{micro}")
                if low <= v <= high:
                    grid.add(v)
    return tuple(sorted(grid))


def _may_run(
    readings: list[tuple[_Test | None, bool]],
    ends: Sequence[End],
    package: str,
    versions: Sequence[Version],
) -> bool:
    """Whether, at one of `versions` of `package` (the other packages at either end), no
    condition is known not to hold."""
    for version in versions:
        for end in ends:
            at = {**end, package: version}
            if not any(
                reading is not None and reading.outcome(at) is (not wanted)
                for reading, wanted in readings
            ):
                return True
    return False
