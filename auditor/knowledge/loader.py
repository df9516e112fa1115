"""Knowledge files in, typed `SpecChange`s out; every bad entry is reported at once."""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import fastjsonschema
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from auditor.errors import KnowledgeError
from auditor.fix.spec import (
    ACTIONS,
    CALL_REWRITES,
    CALL_SHAPE_FIELDS,
    CALL_SHAPE_STATED,
    Fix,
    KeywordRow,
    Transform,
)
from auditor.knowledge import conditions, horizon
from auditor.knowledge.entry import (
    CONSEQUENCES,
    HAZARD_OF_KIND,
    KINDS,
    Docs,
    Hazard,
    Match,
    Probe,
    Severity,
    SpecChange,
    Unloaded,
)
from auditor.knowledge.folders import CHANGE, folder_id

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


HARVEST_DIRECTORY = "harvest"  # knowledge/<package>/harvest/: candidates and waivers, not entries
FILL_IN = "FILL_IN"  # begins a value `kb new` leaves to its author: the loader refuses it


def default_directory() -> Path:
    """The knowledge shipped in the wheel, or the repository's `knowledge/` in a source tree."""
    shipped = resources.files("auditor") / "_knowledge"
    if shipped.is_dir():
        return Path(str(shipped))
    return Path(__file__).resolve().parents[2] / "knowledge"


@cache
def _schema() -> dict[str, Any]:
    """`entry.schema.json` with its lists taken from where they are written once: the kinds,
    hazards, consequences and severities (`models`), the conditions' fragments (their registry,
    `knowledge.conditions`) and the fix actions (`models.ACTIONS`). A test keeps the file in
    step, for the editors that read it."""
    schema: dict[str, Any] = json.loads((Path(__file__).with_name("entry.schema.json")).read_text("utf-8"))
    properties = schema["properties"]
    properties["kind"]["enum"] = list(KINDS)
    properties["hazard"]["enum"] = list(get_args(Hazard))
    properties["consequence"]["enum"] = list(CONSEQUENCES)
    properties["severity"]["enum"] = list(get_args(Severity))
    properties["match"]["items"]["properties"].update(conditions.schema_properties())
    transform = schema["$defs"]["transform"]
    transform["properties"]["on"]["enum"] = list(dict.fromkeys(s for a in ACTIONS.values() for s in a.shapes))
    transform["properties"]["action"]["enum"] = list(ACTIONS)
    transform["allOf"] = [
        {"if": {"properties": {"action": {"const": name}}}, "then": {"required": list(action.required)}}
        for name, action in ACTIONS.items()
    ]
    return schema


@cache
def _valid() -> Callable[[dict[str, Any]], Any]:
    """The schema compiled to a Python function (fastjsonschema): a third of jsonschema's time
    on a valid entry. It stops at the first problem; jsonschema then lists them all. The schema
    keeps to keywords both read alike (draft 7's; a test checks they reject the same entries)."""
    return fastjsonschema.compile(_schema())


@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # only for an entry the quick check rejects

    return Draft202012Validator(_schema())


def schema_problems(raw: dict[str, Any]) -> list[Any]:
    """Every way `raw` breaks the schema (jsonschema's errors), sorted by where; none for a valid entry."""
    try:
        _valid()(raw)
        return []
    except fastjsonschema.JsonSchemaValueException:
        return sorted(_validator().iter_errors(raw), key=lambda e: list(map(str, e.absolute_path)))


def _where(error_path: Iterable[Any]) -> str:
    parts = ""
    for part in error_path:
        parts += f"[{part}]" if isinstance(part, int) else (f".{part}" if parts else str(part))
    return parts or "(entry)"


def _version(text: str, field: str, problems: list[str], source: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        problems.append(f"{source}: {field}: invalid version {text!r}")
        return None


def _specifier(raw: dict[str, Any], key: str, problems: list[str], source: str) -> SpecifierSet | None:
    if key not in raw:
        return None
    try:
        return SpecifierSet(raw[key])
    except InvalidSpecifier:
        problems.append(f"{source}: {key}: invalid specifier {raw[key]!r}")
        return None


def _match(raw: dict[str, Any]) -> Match:
    when = conditions.read(raw)
    return Match(
        call=raw.get("call"),
        method=tuple(raw.get("method", ())),
        receiver=raw.get("receiver", "tensor"),
        operator=tuple(raw.get("operator", ())),
        assign=raw.get("assign"),
        module=raw.get("module"),
        when=when,
        message=raw.get("message"),
        confidence=raw.get("confidence", "high"),
    )


def parse_entry(raw: dict[str, Any], source: str, text: str | None = None) -> tuple[SpecChange | None, list[str]]:
    """Validate one entry's data; return it typed, or None and every problem found. With the
    file's `text`, a problem in the `[fix]` table names its line (`source:line: ...`)."""
    unfilled = [f"{source}: {_where(path)}: still to fill in ({value})" for path, value in _unfilled(raw, [])]
    if unfilled:
        return None, unfilled
    problems = [
        f"{_at(source, text, list(err.absolute_path))}: {_where(err.absolute_path)}: {err.message}"
        for err in schema_problems(raw)
    ]
    if problems:
        return None, problems
    problems += _fix_problems(raw.get("fix", {}), source, text)
    introduced = _version(raw["introduced"], "introduced", problems, source)
    until = _version(raw["until"], "until", problems, source) if "until" in raw else None
    for key in ("python", "requires_python"):
        _specifier(raw, key, problems, source)
    probe_since = raw.get("probe", {}).get("since")
    since = _version(probe_since, "probe.since", problems, source) if probe_since is not None else None
    for release in raw.get("probe", {}).get("absent_on", ()):
        absent = _version(release, "probe.absent_on", problems, source)
        if absent is not None and (since is None or absent >= since):
            problems.append(
                f"{source}: probe.absent_on: {release} is not before the probe's since"
                f" ({probe_since or 'none'}): only a release that lacks what the probe uses can show its absence"
            )
    if introduced and until and until <= introduced:
        problems.append(f"{source}: until: {until} is not after introduced {introduced}")
    if problems or introduced is None:
        return None, problems
    return build_entry(raw, source), []


def _unfilled(value: Any, path: list[Any]) -> Iterable[tuple[list[Any], str]]:
    """(where, value) of each string of `value` that `kb new` left to fill in."""
    if isinstance(value, str) and value.startswith(FILL_IN):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unfilled(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unfilled(item, [*path, index])


def build_entry(raw: dict[str, Any], source: str) -> SpecChange:
    """The typed entry of data that `parse_entry` accepted. Data it did not check may raise
    KeyError, TypeError, ValueError (InvalidVersion and InvalidSpecifier are ValueErrors)."""
    probe = raw.get("probe")
    python, requires_python = (
        SpecifierSet(raw[key]) if key in raw else None for key in ("python", "requires_python")
    )
    return SpecChange(
        id=raw["id"],
        package=raw["package"],
        introduced=Version(raw["introduced"]),
        until=Version(raw["until"]) if "until" in raw else None,
        kind=raw["kind"],
        severity=raw["severity"],
        silent=raw["silent"],
        title=raw["title"],
        symbols=tuple(raw["symbols"]),
        matches=tuple(
            _match({**m, "call": symbol}) for m in raw["match"]
            for symbol in (raw["symbols"] if m.get("each_symbol") else [m.get("call")])
        ),
        docs=Docs(**raw["docs"]),
        references=tuple(raw["references"]),
        source=source,
        python=python,
        platform=raw.get("platform"),
        requires_python=requires_python,
        doubt=raw.get("doubt"),
        hazard=raw.get("hazard", HAZARD_OF_KIND[raw["kind"]]),
        follows=tuple(raw.get("follows", ())),
        related=tuple(raw.get("related", ())),
        covers=tuple(raw.get("covers", ())),
        evidence=raw.get("evidence"),
        stated_consequence=raw.get("consequence"),
        probe=Probe(
            code=probe["code"].strip("\n"),
            before=probe["before"],
            after=probe["after"],
            observed_on=tuple(probe.get("observed_on", ())),
            requires=tuple(probe.get("requires", ())),
            skip=probe.get("skip"),
            since=Version(probe["since"]) if "since" in probe else None,
            absent_on=tuple(probe.get("absent_on", ())),
            warns=probe.get("warns"),
            raises=probe.get("raises"),
        )
        if probe
        else None,
        fix=_fix(raw["fix"]) if "fix" in raw else None,
    )


# --- the [fix] table ---------------------------------------------------------------------------

_MOVED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)?$")  # module or module:attr
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
# placeholders a template may use, per shape: {arg0}.., {kw:NAME} and {args:-NAME} on calls too
_SHAPE_PLACEHOLDERS = {
    "call": ("args", "kwargs", "func"), "method": ("args", "kwargs", "receiver", "inplace"), "operator": ("left", "right"),
}
_CALL_PLACEHOLDER = re.compile(r"^(arg\d+|kw:[A-Za-z_]\w*|args:-[A-Za-z_]\w*)$")


def _fix(raw: dict[str, Any]) -> Fix:
    def transform(t: dict[str, Any]) -> Transform:
        return Transform(
            on=t["on"], action=t["action"], keyword=t.get("keyword"), value=t.get("value"),
            replace=t.get("replace", False), to=t.get("to"), prepend=tuple(t.get("prepend", ())),
            template=t.get("template"), augmented=t.get("augmented"), module=t.get("module"),
            name=t.get("name"), note=t.get("note"),
            requires=SpecifierSet(t["requires"]) if "requires" in t else None,
            symbols=tuple(t.get("symbols", ())), max_positional=t.get("max_positional"),
            min_positional=t.get("min_positional"), keywords=tuple(t.get("keywords", ())),
            keyword_absent=tuple(t.get("keyword_absent", ())), not_literal=tuple(t.get("not_literal", ())),
            map=tuple(_row(r) for r in t.get("map", ())),
            proven_keywords=tuple(t["proven_keywords"]) if "proven_keywords" in t else None,
            proven_values=tuple((k, tuple(v)) for k, v in sorted(t.get("proven_values", {}).items())),
        )

    return Fix(
        keep_old=tuple(transform(t) for t in raw.get("keep_old", ())),
        adopt_new=tuple(transform(t) for t in raw.get("adopt_new", ())),
        probe=raw.get("probe", True),
        probe_reason=raw.get("probe_reason"),
    )


def _row(raw: dict[str, Any]) -> KeywordRow:
    when = tuple((k, (v,) if isinstance(v, str) else tuple(v)) for k, v in raw.items() if k != "to")
    return KeywordRow(when, raw.get("to"))


def _literal(source: str) -> str | None:
    """Why `source` is not a Python literal, or None when it is one."""
    try:
        ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError):
        return f"{source!r} is not a Python literal"
    return None


def _map_problems(t: dict[str, Any]) -> list[tuple[str, str]]:
    found = []
    if "to" in t.get("keywords", ()):
        found.append(("keywords", "`to` names a row's result and cannot be a keyword read"))
    for index, row in enumerate(t.get("map", ())):
        for key, values in row.items():
            if key == "to":
                if problem := _python(values):
                    found.append(("map", f"[{index}].to: {problem}"))
                continue
            if key not in t.get("keywords", ()):
                found.append(("map", f"[{index}]: {key} is not one of the keywords read ({', '.join(t.get('keywords', ()))})"))
            for value in [values] if isinstance(values, str) else values:
                if problem := _literal(value):
                    found.append(("map", f"[{index}].{key}: {problem}"))
    return found


def _python(source: str, mode: str = "eval") -> str | None:
    """Why `source` is not a Python expression (or statement), or None when it is one."""
    try:
        ast.parse(source, mode=mode)
    except SyntaxError as exc:
        return f"not Python: {exc.msg}"
    return None


def _template_problem(template: str, shape: str, mode: str = "eval") -> str | None:
    allowed = _SHAPE_PLACEHOLDERS.get(shape, ())
    for name in PLACEHOLDER.findall(template):
        if name in allowed or (shape != "operator" and _CALL_PLACEHOLDER.match(name)):
            continue
        may = "left, right" if shape == "operator" else f"{', '.join(allowed)}, arg0.., kw:NAME, args:-NAME"
        return f"placeholder {{{name}}} does not fit a {shape} (it may use: {may})"
    return _python(PLACEHOLDER.sub(lambda m: "**_placeholder" if m.group(1) == "kwargs" else "_placeholder", template), mode)


def _transform_problems(t: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, problem) of one schema-valid transform."""
    action, on = t["action"], t["on"]
    found = []
    reads, shapes = ACTIONS[action].fields, ACTIONS[action].shapes
    for key in sorted(set(t) - {"on", "action", "note", "requires", "symbols", *reads}):
        found.append((key, f"not a field of {action} (it reads: {', '.join(reads)})"))
    if on not in shapes:
        found.append(("on", f"{action} cannot rewrite a {on} (it rewrites: {', '.join(shapes)})"))
    for key in CALL_SHAPE_FIELDS:
        if key in t and on not in ("call", "method"):
            found.append((key, f"states the shape of a call; a {on} is not one"))
    for key, values in t.get("proven_values", {}).items():
        if key not in t.get("proven_keywords", ()):
            found.append(("proven_values", f"{key} is not one of proven_keywords"))
        found += [("proven_values", f"{key}: {problem}") for v in values if (problem := _literal(v))]
    if "requires" in t:
        try:
            SpecifierSet(t["requires"])
        except InvalidSpecifier:
            found.append(("requires", f"invalid specifier {t['requires']!r}"))
    for key in ("value", "to"):
        if key in t and action != "replace-module" and (problem := _python(t[key])):
            found.append((key, problem))
    if action == "replace-module":
        for key in ("module", "to"):
            if key in t and not _MOVED.match(t[key]) or key == "module" and ":" in t.get(key, ""):
                found.append((key, f"{t[key]!r} is not a dotted module name" + (" (or module:attribute)" if key == "to" else "")))
    if action == "map-keyword":
        found += _map_problems(t)
    for index, source in enumerate(t.get("prepend", ())):
        if problem := _python(source):
            found.append(("prepend", f"[{index}] {problem}"))
    if "template" in t and (problem := _template_problem(t["template"], on)):
        found.append(("template", problem))
    if "augmented" in t:
        if on != "operator":
            found.append(("augmented", "only a template on an operator has an augmented form"))
        elif problem := _template_problem(t["augmented"], on, "exec"):
            found.append(("augmented", problem))
    return found


def _fix_problems(raw: dict[str, Any], source: str, text: str | None) -> list[str]:
    problems = []
    for mode in ("keep_old", "adopt_new"):
        for index, t in enumerate(raw.get(mode, ())):
            for key, problem in _transform_problems(t):
                path = ["fix", mode, index, key]
                problems.append(f"{_at(source, text, path)}: {_where(path)}: {problem}")
    return problems


def _unstated_shapes(raw: dict[str, Any], source: str, text: str) -> list[str]:
    """A knowledge folder's rule: each transform rewriting a call states the call shapes it was
    proven on (`CALL_SHAPE_STATED`), so that a call outside them is left alone."""
    problems = []
    for mode in ("keep_old", "adopt_new"):
        for index, t in enumerate(raw.get(mode, ())):
            missing = [k for k in CALL_SHAPE_STATED if k not in t]
            if t["action"] in CALL_REWRITES and t["on"] in ("call", "method") and missing:
                path = ["fix", mode, index]
                problems.append(f"{_at(source, text, path)}: {_where(path)}: a rewrite of a call states the call shapes it was "
                                f"proven on: {' and '.join(missing)} missing (benchmarks/fixfuzz.py --shapes shows those that ran)")
    return problems


def _at(source: str, text: str | None, path: list[Any]) -> str:
    """`source:line` for a problem inside the `[fix]` table when the text shows where; else
    `source`. Other problems keep their dotted path alone, as before."""
    if text is None or not path or path[0] != "fix":
        return source
    line = _fix_line(text, path)
    return f"{source}:{line}" if line else source


def _fix_line(text: str, path: list[Any]) -> int | None:
    lines = text.splitlines()
    header = re.compile(r"^\s*\[")
    start = next((i for i, s in enumerate(lines) if re.match(r"^\s*\[\[?\s*fix\b", s)), None)
    if start is None:
        return None
    if len(path) >= 3 and isinstance(path[2], int):  # fix.<mode>[n]...: the n-th [[fix.<mode>]]
        tables = [i for i, s in enumerate(lines) if re.match(rf"^\s*\[\[\s*fix\.{path[1]}\s*\]\]", s)]
        if len(tables) <= path[2]:
            return start + 1
        start = tables[path[2]]
        if len(path) >= 4:
            for i in range(start + 1, len(lines)):
                if header.match(lines[i]):
                    break
                if re.match(rf"^\s*{re.escape(str(path[3]))}\s*=", lines[i]):
                    return i + 1
    return start + 1


def _stage_problems(entries: list[SpecChange], root: str) -> list[str]:
    """`follows` names an entry of the same package introduced in an earlier release (so no loops);
    `related` names entries that exist."""
    by_id = {e.id: e for e in entries}
    problems = []
    for entry in entries:
        problems += [f"{root}/{entry.source}: related: no entry with id {other!r}"
                     for other in entry.related if other not in by_id]
        for follows in entry.follows:
            earlier = by_id.get(follows)
            if earlier is None:
                problems.append(f"{root}/{entry.source}: follows: no entry with id {follows!r}")
            elif earlier.package != entry.package or earlier.introduced >= entry.introduced:
                problems.append(
                    f"{root}/{entry.source}: follows: {follows!r} is {earlier.package} {earlier.introduced}, "
                    f"not an earlier release of {entry.package} than {entry.introduced}"
                )
    return problems


def _all_stages(entries: list[SpecChange]) -> list[SpecChange]:
    """Each entry's `follows` with the stages before those, latest first: a removal follows the
    warning that follows the deprecation, though a transition may cross only the first and last."""
    by_id = {e.id: e for e in entries}

    def earlier(entry: SpecChange) -> tuple[str, ...]:
        found: dict[str, None] = {}
        for stage in entry.follows:
            found[stage] = None
            found.update(dict.fromkeys(earlier(by_id[stage])))
        return tuple(sorted(found, key=lambda i: by_id[i].introduced, reverse=True))

    return [replace(e, follows=earlier(e)) if e.follows else e for e in entries]


@dataclass(frozen=True)
class Knowledge:
    """What a knowledge directory holds: its entries and its horizon, typed, and `raw`, the
    checked data they were built from (plain JSON values), which `rebuild` turns back into them;
    with `with_unloaded`, also the changes its harvest generates, counted (`Unloaded`)."""

    entries: tuple[SpecChange, ...]
    horizon: dict[str, Version]
    raw: dict[str, Any]
    unloaded: tuple[Unloaded, ...] = ()


def with_unloaded(knowledge: Knowledge, groups: Iterable[Unloaded]) -> Knowledge:
    groups = tuple(groups)
    rows = [[g.package, str(g.introduced), None if g.until is None else str(g.until), g.hazard, g.count] for g in groups]
    return replace(knowledge, raw={**knowledge.raw, "unloaded": rows}, unloaded=groups)


def load_entries(directory: Path | None = None) -> tuple[SpecChange, ...]:
    return read_knowledge(directory).entries


def knowledge_files(root: Path) -> list[Path]:
    """The TOML files the entries and the horizon are read from, in order: the harvest's
    candidates and waivers are read on demand, not with them."""
    return [f for f in sorted(root.rglob("*.toml")) if HARVEST_DIRECTORY not in f.relative_to(root).parts]


def read_knowledge(directory: Path | None = None) -> Knowledge:
    """Every file under `directory` read and checked; a KnowledgeError lists every problem. An
    entry in a change's folder (`<package>/<version>/<stem>/change.toml`) has the id
    `<package>-<stem>`."""
    root = directory or default_directory()
    files = knowledge_files(root)
    if not files:
        raise KnowledgeError([f"{root}: no knowledge files found"])
    entries: list[SpecChange] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    rows: list[list[Any]] = []
    declared: dict[str, Version] = {}
    raw_horizon: dict[str, Any] = {}
    for file in files:
        source = file.relative_to(root).as_posix()
        try:
            text = file.read_text("utf-8")
            raw = tomllib.loads(text)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{file}: {exc}")
            continue
        if source == horizon.FILE:
            declared, errors = horizon.parse_horizon(raw, f"{root.name}/{source}")
            problems += errors
            raw_horizon = raw
            continue
        entry, errors = parse_entry(raw, source, text)
        if entry is not None:
            errors += _unstated_shapes(raw.get("fix", {}), source, text)
        errors = [f"{root.name}/{e}" for e in errors]
        problems += errors
        if entry is None:
            continue
        if file.name == CHANGE and entry.id != (named := folder_id(file.parent)):
            problems.append(
                f"{root.name}/{source}: id: {entry.id!r} is not {named!r}, the id its folder gives"
                " (<package>-<stem>): rename the folder or the id"
            )
        if entry.id in seen:
            problems.append(f"{root.name}/{source}: id: {entry.id!r} is also the id of {seen[entry.id]}")
        seen[entry.id] = source
        entries.append(entry)
        rows.append([source, raw])
    for entry in entries:
        newest = declared.get(entry.package)
        if newest is not None and max(entry.introduced, entry.until or entry.introduced) > newest:
            problems.append(
                f"{root.name}/{entry.source}: introduced: {entry.introduced} is past the horizon "
                f"{newest} of {entry.package} ({horizon.FILE}): move the horizon once the releases "
                f"up to it are reviewed"
            )
    problems += _stage_problems(entries, root.name)
    if problems:
        raise KnowledgeError(problems)
    data = {"entries": rows, "horizon": raw_horizon}
    ordered = tuple(sorted(_all_stages(entries), key=lambda e: (e.package, e.introduced, e.id)))
    return Knowledge(ordered, _horizon(ordered, declared), data)


def rebuild(data: Any) -> Knowledge:
    """`Knowledge.raw` back into the typed knowledge, without the schema (it was checked when
    read). Data of another shape raises KeyError, TypeError or ValueError."""
    built = [build_entry(raw, source) for source, raw in data["entries"]]
    entries = tuple(sorted(_all_stages(built), key=lambda e: (e.package, e.introduced, e.id)))
    declared, problems = horizon.parse_horizon(data["horizon"], horizon.FILE)
    if problems:
        raise ValueError(problems[0])
    unloaded = tuple(
        Unloaded(package, Version(introduced), None if until is None else Version(until), hazard, int(count))
        for package, introduced, until, hazard, count in data.get("unloaded", ())
    )
    return Knowledge(entries, _horizon(entries, declared), data, unloaded)


def _horizon(entries: tuple[SpecChange, ...], declared: dict[str, Version]) -> dict[str, Version]:
    """The declared horizons; a package without one (a knowledge directory of a test, say) is
    taken as reviewed up to the newest release its entries name."""
    derived: dict[str, Version] = {}
    for entry in entries:
        newest = max(entry.introduced, entry.until or entry.introduced)
        derived[entry.package] = max(derived.get(entry.package, newest), newest)
    return {**derived, **declared}
