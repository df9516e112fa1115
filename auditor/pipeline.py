"""Every audit: locks -> transitions -> crossed knowledge -> call sites -> AuditResult -> rewrites."""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.errors import AuditorError, ScanError, UsageError
from auditor.findings import fold_generated, good_news, merge_stages, one_per_site
from auditor.fix.spec import FixMode
from auditor.importers import Importers
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import Docs, Match, SpecChange, final_release, release
from auditor.knowledge.horizon import moves
from auditor.lockfiles import Selection, diff_locks, read_lock
from auditor.lockfiles.interface import REVIEWED_FAMILY, parse_version
from auditor.locklayout import Scopes
from auditor.models import AuditResult, EnvironmentFinding, Finding, Lock, Transition
from auditor.requests import AuditRequest, FixRequest, GitRange, LockPair, Probing
from auditor.scan import scan_project, syntax
from auditor.scan.config import ScanConfig, load_config
from auditor.scan.project import ScanOptions
from auditor.scan.rules import transition_ends

if TYPE_CHECKING:
    from auditor.dependencies.stage import DependencyAudit, DependencySettings
    from auditor.fix.model import FixResult
    from auditor.probe import ProbeSettings, Reporter
    from auditor.suggestion import Suggestion

# conda names the PyPI package `torch` `pytorch`
ALIASES = {"pytorch": "torch"}


def package_name(name: str) -> str:
    canonical = canonicalize_name(name)
    return ALIASES.get(canonical, canonical)


def check_project(project: Path) -> None:
    """A project to scan is a folder that can be listed or a file that can be read: anything
    else is the user's mistake (a typo in CI must not end in a green audit that read nothing)."""
    try:
        mode = project.stat().st_mode
        if stat.S_ISDIR(mode):
            with os.scandir(project):
                pass
        elif stat.S_ISREG(mode):
            with project.open("rb"):
                pass
        else:
            raise ScanError("the project to scan is neither a folder nor a file", project)
    except FileNotFoundError as exc:
        raise ScanError("the project to scan does not exist", project) from exc
    except OSError as exc:
        raise ScanError(
            f"the project to scan cannot be read: {exc.strerror or exc}", project
        ) from exc


def audit(
    transitions: Iterable[Transition],
    project: Path | None,
    kb: KnowledgeBase,
    python: str | None = None,
    environment: Iterable[EnvironmentFinding] = (),
    config: Path | None = None,
    scan_options: ScanOptions | None = None,
    notes: Iterable[str] = (),
    locks: Sequence[tuple[str, Lock]] = (),
    dependencies: DependencySettings | None = None,
) -> AuditResult:
    """`config`: the `--config` file; without it, `[tool.auditor]` of the project's pyproject.toml.
    `scan_options`: cache, processes and progress of the scan (default: no cache, silent).
    `notes`: what was done to read the inputs, for the report. `locks`: the new locks (as
    reported) whose dependencies `dependencies` says how to audit (None: not audited)."""
    if project is not None:
        check_project(project)
    transitions = tuple(transitions)
    kb, harvest_notes = kb.harvest_beyond(transitions)
    notes = (*notes, *harvest_notes, *_prerelease_notes(transitions))
    changes = kb.crossed(transitions, python)
    good = tuple(c for c in kb.good_news(transitions, python) if c not in changes)
    settings = load_config(config, project)
    environment = tuple(environment)
    added = _added(transitions)
    notes = (*notes, *added)
    imports = _import_probes(environment) if project is not None else ()
    scanned = changes + good + imports
    notes = (*notes, *_unknown_ignores(settings, kb))
    scan_notes: list[str] = []
    options = replace(scan_options or ScanOptions(), note=scan_notes.append)
    findings, skipped = (
        scan_project(
            project,
            scanned,
            settings,
            options,
            (e.id for e in kb.entries),
            transition_ends((t.package, t.old, t.new, t.environment) for t in transitions),
            kb.presence,
        )
        if project is not None and scanned
        else ([], [])
    )
    environment, removal_notes = _removals(environment, findings, imports)
    notes = (*notes, *removal_notes)
    findings = [f for f in findings if f.change not in {c.id for c in imports}]
    hazards = {c.id for c in changes}
    unread = syntax.not_read(skipped)
    if unread is not None:  # a medium finding and a note, as a move past the knowledge's horizon
        environment, notes = (*environment, unread), (*notes, unread.message)
    deps = (
        _dependencies(locks, transitions, changes, dependencies, project, settings, options)
        if dependencies is not None and dependencies.enabled and locks
        else None
    )
    environment = (*environment, *(deps.environment if deps else ()))
    unread_deps = _unread_dependencies(deps.unread if deps else ()) + _dependencies_off(
        locks, transitions, dependencies
    )
    notes = (*notes, *unread_deps)
    unreviewed, horizon_notes = kb.beyond(transitions)
    unloaded_notes = kb.not_loaded(transitions)  # the generated changes crossed but not checked
    reported, folded = fold_generated(
        merge_stages((f for f in findings if f.change in hazards), changes), changes
    )
    reported = one_per_site(
        (replace(f, vendored=settings.is_vendored(f.path)) for f in reported), changes
    )
    return AuditResult(
        transitions=transitions,
        changes=changes,
        findings=reported,
        environment=environment + unreviewed,
        skipped=tuple(skipped),
        notes=kb.notes
        + tuple(notes)
        + tuple(dict.fromkeys(scan_notes))
        + horizon_notes
        + unloaded_notes
        + ((folded,) if folded else ()),
        good_news=good_news(good, (f for f in findings if f.change not in hazards)),
        horizon=tuple(sorted(kb.horizon.items())),
        unchecked=(*added, *unloaded_notes, *unread_deps),
        dependencies=deps.findings if deps else (),
        dependencies_read=deps.scanned if deps else (),
        requirements_read=deps.read if deps else 0,
    )


def _dependencies(
    locks: Sequence[tuple[str, Lock]],
    transitions: tuple[Transition, ...],
    changes: Sequence[SpecChange],
    dependencies: DependencySettings | None,
    project: Path | None,
    settings: ScanConfig,
    options: ScanOptions,
) -> DependencyAudit:
    from auditor.dependencies.stage import (  # the index reader: only when asked
        NOTHING,
        audit_dependencies,
    )

    if dependencies is None:
        return NOTHING
    return audit_dependencies(locks, transitions, changes, dependencies, project, settings, options)


def _dependencies_off(
    locks: Sequence[tuple[str, Lock]],
    transitions: tuple[Transition, ...],
    dependencies: DependencySettings | None,
) -> tuple[str, ...]:
    """The sentence for a bump of the torch family whose locked dependencies were not read because
    the options said so."""
    if dependencies is None or dependencies.enabled or not locks:
        return ()
    if not any(t.package in REVIEWED_FAMILY and t.new is not None for t in transitions):
        return ()
    return (
        (
            "the locked dependencies were not read (--no-dependencies): what they require of torch and "
            "how they call it are not checked"
        ),
    )


def _unread_dependencies(unread: Sequence[str]) -> tuple[str, ...]:
    """One note for the locked dependencies that could not be read: the audit is then not
    verified in full."""
    if not unread:
        return ()
    shown = "; ".join(unread[:5]) + (f"; and {len(unread) - 5} more" if len(unread) > 5 else "")
    one = len(unread) == 1
    said = (
        f"{len(unread)} locked dependenc{'y' if one else 'ies'} not read, so what "
        f"{'it requires of' if one else 'they require of'} torch and how "
        f"{'it calls' if one else 'they call'} it are not checked: {shown}"
    )
    return (said,)


def _prerelease_notes(transitions: Iterable[Transition]) -> tuple[str, ...]:
    """A pre-release or nightly end is audited as the release it leads to (`SpecChange.active`)."""
    return tuple(
        dict.fromkeys(
            f"{t.package} {v} is a pre-release: audited as the {final_release(v)} release it leads to"
            for t in transitions
            for v in (t.old, t.new)
            if v is not None and v.is_prerelease
        )
    )


def _added(transitions: tuple[Transition, ...]) -> list[str]:
    """A package (or a variant of it) the old lock did not install has nothing to compare with."""
    return [
        f"{t.package} {t.new}"
        + (f" [{t.variant}]" if t.variant else "")
        + " is new in the new lock: there is no earlier version to compare, so no change was checked for it"
        for t in transitions
        if t.direction == "added" and t.package in REVIEWED_FAMILY
    ]


def _import_probes(environment: tuple[EnvironmentFinding, ...]) -> tuple[SpecChange, ...]:
    """For each package a lock no longer installs: a change whose only matcher is the import of
    that package, scanned with the others to tell whether the project imports it."""
    packages = sorted({e.package for e in environment if e.kind == "package-removed" and e.package})
    return tuple(
        SpecChange(
            id=f"auditor-imports-{package}",
            package=package,
            introduced=Version("0"),
            kind="removed",
            severity="high",
            silent=False,
            title=f"imports {package}",
            symbols=(package,),
            matches=(Match(module=package),),
            docs=Docs("", "", "", "", ""),
            references=(),
            source="",
        )
        for package in packages
    )


def _removals(
    environment: tuple[EnvironmentFinding, ...],
    findings: Sequence[Finding],
    imports: tuple[SpecChange, ...],
) -> tuple[tuple[EnvironmentFinding, ...], list[str]]:
    """A package the new lock no longer installs stays a finding where the project imports it
    (named with the first import); where it does not, it becomes a note."""
    if not imports:
        return environment, []
    sites = {
        c.package: sorted(
            (f for f in findings if f.change == c.id), key=lambda f: (f.path, f.cell or 0, f.line)
        )
        for c in imports
    }
    kept, notes = [], []
    for e in environment:
        if e.kind != "package-removed" or e.package not in sites:
            kept.append(e)
        elif sites[e.package]:
            first = sites[e.package][0]
            at = (
                f"{first.path}:{first.line}"
                if first.cell is None
                else f"{first.path} cell {first.cell}, line {first.line}"
            )
            kept.append(replace(e, message=f"{e.message}; the project imports it ({at})"))
        else:
            notes.append(f"{e.message}; the project does not import {e.package}")
    return tuple(kept), notes


def reviewed_transitions(transitions: Iterable[Transition], kb: KnowledgeBase) -> list[Transition]:
    """The moves an audit reports: those of packages the knowledge base knows, and those of the
    torch family it has no knowledge of, moved or newly added (reported as not reviewed, never
    left out)."""
    known = set(kb.packages())
    return [
        t
        for t in transitions
        if t.package in known
        or (t.package in REVIEWED_FAMILY and (moves(t) or t.direction == "added"))
    ]


def compare(
    old: Path,
    new: Path,
    project: Path | None,
    kb: KnowledgeBase,
    old_format: str | None = None,
    new_format: str | None = None,
    python: str | None = None,
    config: Path | None = None,
    platform: str | None = None,
    resolve: bool = False,
    scan_options: ScanOptions | None = None,
    dependencies: DependencySettings | None = None,
) -> AuditResult:
    """`python` and `platform` select one environment of locks that pin several; `resolve` turns
    unpinned inputs into pins with pip-compile; `dependencies`: how the new lock's dependencies
    are audited (None: they are not)."""
    locks = (read_lock(old, old_format, resolve), read_lock(new, new_format, resolve))
    diff = diff_locks(*locks, Selection(python, platform), kb.entries)
    transitions = reviewed_transitions(diff.packages, kb)
    unpinned, said = sides_without_pins(transitions, (old.name, locks[0]), (new.name, locks[1]))
    notes = [
        f"{path.name}: {note}" for path, lock in zip((old, new), locks) for note in lock.notes
    ] + said
    notes += diff.notes
    return audit(
        transitions,
        project,
        kb,
        python,
        diff.environment + unpinned,
        config=config,
        scan_options=scan_options,
        notes=notes,
        locks=[(new.name, locks[1])],
        dependencies=dependencies,
    )


def sides_without_pins(
    transitions: Iterable[Transition], old: tuple[str | None, Lock | None], new: tuple[str, Lock]
) -> tuple[tuple[EnvironmentFinding, ...], list[str]]:
    """A torch-family package that one side pins and the other does not name at all: where it
    moves from (or to) is unknown, so the changes on the way are not checked. A medium finding,
    as for a move past the knowledge base's horizon, and a note. Each side is its source's name
    and lock (None: there was none)."""
    findings, notes = [], []
    named = [
        {p.name for p in lock.pins} if lock is not None else set() for lock in (old[1], new[1])
    ]
    for t in transitions:
        if t.package not in REVIEWED_FAMILY or t.unpinned or (t.old is None) == (t.new is None):
            continue
        if t.package in named[0 if t.old is None else 1]:
            continue  # listed without a version there: the not-locked finding says it
        if t.new is None and t.package == "torch":
            continue  # the lock diff's package-removed finding says it, where the code imports torch
        if t.old is None:
            before = (
                f"{old[0]} pins no {t.package}"
                if old[0]
                else f"nothing pinned {t.package} for {new[0]}'s code before"
            )
            message = f"{t.package} {t.new} in {new[0]}: {before}, so the changes up to {t.new} are not checked"
        else:
            message = (
                f"{t.package} {t.old} in {old[0]}: {new[0]} pins no {t.package}, so the version it moves to "
                f"is unknown"
            )
        findings.append(EnvironmentFinding("no-pin", "medium", message, t.package))
        notes.append(message)
    return tuple(findings), notes


def compare_range(
    inputs: GitRange,
    request: AuditRequest,
    kb: KnowledgeBase,
    probe: Callable[[AuditResult, Path | None], AuditResult] | None = None,
) -> tuple[AuditResult, tuple[str, ...]]:
    """`compare --git BASE..HEAD` and the Action: every lockfile changed from base to head (None:
    the working tree), compared as `compare` compares two; the project (a folder of the
    repository, by default all of it) scanned as of head. The range's `fallback` moves, named
    elsewhere (a bump PR's metadata), count for packages no changed lockfile moves. `probe` runs
    while head's tree exists. Returns the result and the lockfiles compared."""
    from auditor import gitrange

    repo, env, config = inputs.repo, request.environment, request.config
    project = request.project or repo
    check_project(project)
    try:
        inside = project.resolve().relative_to(repo.resolve())
    except ValueError:
        raise UsageError(f"{project}: --git scans a folder of the repository {repo}") from None
    selection = Selection(env.python, env.platform)
    with gitrange.read_range(
        repo,
        inputs.base,
        inputs.head,
        inputs.patterns,
        inputs.old_format,
        inputs.new_format,
        env.resolve,
    ) as reading:
        transitions: dict[Transition, None] = {}
        by_lock: dict[str, list[Transition]] = {}
        environment: dict[EnvironmentFinding, None] = dict.fromkeys(reading.environment)
        notes = list(reading.notes)
        for pair in reading.pairs:
            # each lock named as the repository names it, never by its temporary checkout
            old = (
                replace(pair.old, path=pair.old_path or pair.path)
                if pair.old
                else Lock(pair.path, pair.new.format, ())
            )
            diff = diff_locks(old, replace(pair.new, path=pair.path), selection, kb.entries)
            moving = reviewed_transitions(diff.packages, kb)
            transitions.update((t, None) for t in moving)
            by_lock.setdefault(pair.path, []).extend(moving)
            unpinned, said = sides_without_pins(
                moving, (pair.old_path, pair.old), (pair.path, pair.new)
            )
            environment.update((e, None) for e in (*diff.environment, *unpinned))
            notes += [
                f"{pair.path}: {note}"
                for lock in (pair.old, pair.new)
                if lock
                for note in lock.notes
            ] + said
            notes += diff.notes
        # a package only declared by ranges on both sides moves no version: a PR's named bump tells more
        moved = {t.package for t in transitions if t.old is not None or t.new is not None}
        unscoped = []
        for transition, note in inputs.fallback:
            if transition.package not in moved:
                transitions = {t: None for t in transitions if t.package != transition.package}
                transitions[transition] = None
                unscoped.append(transition)
                notes += [note] if note else []
        scanned = reading.tree / inside
        if not scanned.exists():
            raise UsageError(f"{project}: not in commit {inputs.head}, the commit scanned")
        result = audit(
            transitions,
            scanned,
            kb,
            env.python,
            environment,
            config,
            request.scan,
            tuple(dict.fromkeys(notes)),
            locks=[(pair.path, replace(pair.new, path=pair.path)) for pair in reading.pairs],
            dependencies=request.dependencies,
        )
        settings = load_config(config, scanned)
        given = {
            _in_repo(inside, k): tuple(_in_repo(inside, f) for f in v)
            for k, v in settings.lock_scopes
        }
        scopes = Scopes.of(reading.locks, reading.layout, given)
        result = scoped(
            result,
            scopes,
            by_lock,
            unscoped,
            inside,
            Importers(reading.tree, reading.layout.sources),
        )
        strays = [lock for lock in given if lock not in reading.locks]
        result = replace(
            result,
            notes=result.notes
            + tuple(
                f"{settings.source}: lock-scopes names {lock}, which is no lock of the commit scanned: it governs nothing"
                for lock in strays
            ),
        )
        if probe is not None:
            result = probe(result, scanned)
    return result, tuple(p.path for p in reading.pairs)


def _in_repo(inside: Path, path: str) -> str:
    joined = (inside / path).as_posix()
    return "" if joined == "." else joined


_PASSED_NAMED = 3  # more locks whose code is left out than this: one note for them all


def scoped(
    result: AuditResult,
    scopes: Scopes,
    by_lock: dict[str, list[Transition]],
    unscoped: Sequence[Transition],
    inside: Path,
    imported: Importers | None = None,
) -> AuditResult:
    """The result with each call site judged by the moves of the locks that govern its file
    only: in a repository of several projects, one project's bump says nothing of another's
    code. Code no lock governs is judged by the locks governing the files that import it
    (`shared/util.py`, imported by a service), by the one lock of a repository that has one,
    and otherwise by none: a folder of examples beside others, each with its own lock, is not
    judged by a neighbour's bump (a note counts its call sites). `unscoped` moves (named outside
    any lock) judge everything."""
    if not scopes.several():
        return result
    crossed: dict[tuple[str, ...], set[str]] = {}
    package = {c.id: c.package for c in result.changes}
    kept, passed, unowned, unjudged = [], Counter[tuple[str, ...]](), 0, Counter[str]()
    for finding in result.findings:
        path = _in_repo(inside, finding.path)
        change_package = package.get(finding.change, "")
        governed = locks = scopes.governing(path, change_package)
        if not governed:
            locks = _judging(path, change_package, scopes, imported)
            if not locks and not unscoped:
                unjudged[path.partition("/")[0] if "/" in path else "."] += 1
                continue
        if locks not in crossed:
            moving = [*unscoped, *(t for lock in locks for t in by_lock.get(lock, ()))]
            crossed[locks] = {
                c.id
                for c in result.changes
                for t in moving
                if c.package == t.package and c.crossed_by(t)
            }
        if finding.change in crossed[locks]:
            kept.append(finding)
            unowned += not governed
        else:
            passed[locks] += 1
    notes = [
        f"{lock}: its moves judge the code in {scopes.describe(lock)}"
        for lock, moving in sorted(by_lock.items())
        if moving
    ]
    if unowned:
        notes.append(
            f"{unowned} call site(s) in code that no lock governs, judged by the locks of the "
            "code that imports it (or of the only lock)"
        )
    if unjudged:
        where = ", ".join(
            f"{folder}/: {n}" if folder != "." else f"the root: {n}"
            for folder, n in sorted(unjudged.items())
        )
        notes.append(
            f"{sum(unjudged.values())} call site(s) in code that no lock governs and no governed "
            f"code imports, not judged by another project's lock ({where}); name its lock in "
            "[tool.auditor.lock-scopes] to judge it"
        )
    if len(passed) <= _PASSED_NAMED:
        notes += [
            f"{count} call site(s) in code governed by {', '.join(locks)} not reported: "
            "no move of its lock crosses their change"
            for locks, count in sorted(passed.items())
        ]
    else:  # a repository of many projects: one line, not one per project
        each = "; ".join(f"{', '.join(locks)}: {n}" for locks, n in sorted(passed.items()))
        notes.append(
            f"{sum(passed.values())} call site(s) in code governed by {len(passed)} other locks "
            f"not reported: no move of those locks crosses their change ({each})"
        )
    return replace(result, findings=tuple(kept), notes=result.notes + tuple(notes))


def _judging(
    path: str, package: str, scopes: Scopes, imported: Importers | None
) -> tuple[str, ...]:
    """The locks that judge a file no lock governs: those governing the files importing it,
    else the one lock naming the package when there is only one."""
    by_importers = sorted(
        {
            lock
            for importer in (imported.of(path) if imported is not None else ())
            for lock in scopes.governing(importer, package)
        }
    )
    if by_importers:
        return tuple(by_importers)
    naming = [lock for lock in scopes.folders if package in scopes.names.get(lock, ())]
    return tuple(naming) if len(naming) == 1 else ()


def transition_between(package: str, from_version: str, to_version: str) -> Transition:
    """The transition the command line names with --package, --from and --to."""
    return Transition(
        package_name(package),
        parse_version(from_version, "--from"),
        parse_version(to_version, "--to"),
    )


def _unknown_ignores(settings: ScanConfig, kb: KnowledgeBase) -> list[str]:
    """An id in `ignore` or `per-path-ignores` that names no entry ignores nothing: a typo to say."""
    known = {e.id for e in kb.entries}
    named = set(settings.ignore).union(*(ids for _, ids in settings.per_path_ignores)) - {"*"}
    where = settings.source or "[tool.auditor]"
    return [
        f"{where}: ignore names no knowledge entry {name!r}; it ignores nothing"
        for name in sorted(named - known)
    ]


def known_package(kb: KnowledgeBase, package: str) -> str:
    """`package`'s canonical name, when the knowledge base has entries for it or a harvest (whose
    generated changes an audit without `--harvested` counts as not checked)."""
    name = package_name(package)
    harvested = sorted({g.package for g in kb.unloaded} - set(kb.packages()))
    if name not in kb.packages() and name not in harvested:
        known = ", ".join(kb.packages()) + "".join(
            f"; {p} from its harvest only" for p in harvested
        )
        raise UsageError(f"the knowledge base knows no package {name!r} (it knows {known})")
    return name


def given_transition(
    kb: KnowledgeBase, package: str, from_version: str, to_version: str
) -> Transition:
    """`transition_between`, for a package the knowledge base knows."""
    return transition_between(known_package(kb, package), from_version, to_version)


def scan(
    project: Path,
    from_version: str,
    to_version: str,
    kb: KnowledgeBase,
    package: str = "torch",
    python: str | None = None,
    config: Path | None = None,
    scan_options: ScanOptions | None = None,
) -> AuditResult:
    transition = given_transition(kb, package, from_version, to_version)
    return audit([transition], project, kb, python, config=config, scan_options=scan_options)


def scan_changes(
    kb: KnowledgeBase, package: str, from_version: str, to_version: str
) -> tuple[SpecChange, ...]:
    """The entries of `package` that the transition from_version -> to_version crosses."""
    return kb.crossed([transition_between(package, from_version, to_version)])


def with_probes(
    result: AuditResult,
    settings: ProbeSettings,
    reporter: Reporter | None = None,
    project: Path | None = None,
) -> AuditResult:
    """`--probe`: the result with the crossed entries' probes run on both sides of each transition.

    With the scanned `project`, findings whose expression is built from literals and torch
    constructors only are evaluated on both versions too, and say what each showed.
    """
    from auditor.probe import SILENT
    from auditor.probe.callsite import annotate, find_sites
    from auditor.probe.executor import probe_with_sites
    from auditor.progress import NoteKeeper

    base = None if project is None else (project if project.is_dir() else project.parent)
    sites, unprobed = (
        find_sites(result.findings, result.changes, base) if base is not None else ([], [])
    )
    # A lock's `1.12.1+cu116` is probed on the 1.12.1 release, CPU build preferred: the spec
    # changes are the release's, and CUDA builds neither run here nor install cheaply.
    releases = [
        replace(t, old=t.old and release(t.old), new=t.new and release(t.new))
        for t in result.transitions
    ]
    keeper = NoteKeeper(reporter or SILENT)
    outcomes, runs = probe_with_sites(releases, result.changes, sites, settings, keeper)
    probed = {c.package for c in result.changes if c.probe is not None}
    notes = tuple(
        f"{t.package} {version} probed on the {release(version)} release"
        for t in result.transitions
        if t.package in probed
        for version in (t.old, t.new)
        if version is not None and version.local
    )
    return replace(
        result,
        probes=result.probes + outcomes,
        findings=annotate(result.findings, sites, runs),
        notes=result.notes + tuple(dict.fromkeys(notes)) + tuple(unprobed) + tuple(keeper.notes),
    )


def probe(
    kb: KnowledgeBase,
    package: str,
    from_version: str,
    to_version: str,
    settings: ProbeSettings,
    reporter: Reporter | None = None,
) -> AuditResult:
    """`auditor probe`: the transition's crossed entries and their probe outcomes, no scan."""
    transition = given_transition(kb, package, from_version, to_version)
    result = AuditResult(
        transitions=(transition,),
        changes=kb.crossed([transition]),
        findings=(),
        notes=kb.notes + kb.beyond([transition])[1],
    )
    return with_probes(result, settings, reporter)


@dataclass(frozen=True)
class Audited:
    """What `run` hands the renderers: the result, and what the request asked to go with it."""

    result: AuditResult
    fixes: FixResult | None = None  # the rewrite of every call site (request.fixes.rewrite)
    suggested: Mapping[str, Suggestion] = field(default_factory=dict)  # per change, its own rewrite
    lockfiles: tuple[str, ...] = ()  # compare --git: the lockfiles compared
    warnings: tuple[
        str, ...
    ] = ()  # what did not run and is no part of the report (a tolerant probe)


def prober(
    probing: Probing, warnings: list[str]
) -> Callable[[AuditResult, Path | None], AuditResult]:
    """The probe stage for a result and the tree it was scanned in: the one wiring of `--probe`,
    on every command and in the GitHub Action. A tolerant probing (the Action's) runs only when
    changes are crossed, and a probe that cannot run adds to `warnings` instead of failing."""

    def stage(result: AuditResult, scanned: Path | None) -> AuditResult:
        if not probing.tolerant:
            return with_probes(result, probing.settings, probing.reporter, scanned)
        if not result.changes:
            return result
        try:
            return with_probes(result, probing.settings, probing.reporter, scanned)
        except AuditorError as exc:
            warnings.append(f"probes did not run: {exc}")
            return result

    return stage


def run(request: AuditRequest, kb: KnowledgeBase) -> Audited:
    """compare, compare --git, scan, fix, plan and the Action: read the inputs, scan, probe, set
    the gate, and make the rewrites the report carries."""
    inputs, env, project = request.inputs, request.environment, request.project
    warnings: list[str] = []
    probe = None if request.probe is None else prober(request.probe, warnings)
    lockfiles: tuple[str, ...] = ()
    if isinstance(inputs, GitRange):
        result, lockfiles = compare_range(inputs, request, kb, probe)
    else:
        if isinstance(inputs, LockPair):
            result = compare(
                inputs.old,
                inputs.new,
                project,
                kb,
                inputs.old_format,
                inputs.new_format,
                env.python,
                config=request.config,
                platform=env.platform,
                resolve=env.resolve,
                scan_options=request.scan,
                dependencies=request.dependencies,
            )
        elif project is None:
            raise UsageError("a transition given by its versions needs a project to scan")
        else:
            result = scan(
                project,
                inputs.old,
                inputs.new,
                kb,
                inputs.package,
                env.python,
                config=request.config,
                scan_options=request.scan,
            )
        if probe is not None:
            result = probe(result, project)
    result = replace(result, gate=request.gate)
    wanted = request.fixes
    if wanted is None or not result.findings:
        return Audited(result, lockfiles=lockfiles, warnings=tuple(warnings))
    from auditor.fix.apply import fix_project
    from auditor.suggestion import fix_command

    fixes = (
        fix_project(result, wanted.root, wanted.mode, wanted.min_confidence)
        if wanted.rewrite
        else None
    )
    suggested = (
        suggestions(
            result,
            wanted.root,
            wanted.mode,
            command=fix_command(result, wanted.shown, wanted.mode, wanted.locks),
        )
        if wanted.suggest
        else {}
    )
    return Audited(result, fixes, suggested, lockfiles, tuple(warnings))


@dataclass(frozen=True)
class Fixed:
    """What `auditor fix` did: the audit, its rewrite (with proofs), and the files written."""

    audited: AuditResult
    fixed: FixResult
    written: list[str] | None

    def left(self) -> AuditResult:
        """The audit of what the rewrite leaves alone: what the exit code counts."""
        return replace(
            self.audited, findings=tuple(x.finding for x in self.fixed.left_alone), environment=()
        )


def fix(request: FixRequest, kb: KnowledgeBase) -> Fixed:
    """`auditor fix`: audit, rewrite, prove (`--probe`, before anything is written: the originals
    are read from the files) and write (`--write`, only over committed files unless forced)."""
    from auditor.fix.apply import fix_project
    from auditor.fix.gitcheck import uncommitted
    from auditor.fix.writer import write

    root = request.root
    if isinstance(request.audit.inputs, LockPair):
        check_project(root)  # before the locks are read
    result = run(request.audit, kb).result
    fixed = fix_project(result, root, request.mode, request.min_confidence)
    if request.proof is not None:
        from auditor.fix.proof import prove

        proofs, unproven, checks = prove(
            fixed, root, request.proof.settings, request.proof.reporter
        )
        fixed = replace(fixed, proofs=proofs, notes=(*fixed.notes, *unproven), checks=checks)
    written = None
    if request.write:
        dirty = uncommitted(root)
        if dirty and not request.force:
            shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
            raise UsageError(
                f"uncommitted changes in the project ({shown}): commit or stash them, or give --force",
                root,
            )
        written = write(fixed, root)
        if dirty is None and fixed.changed:
            fixed = replace(
                fixed,
                notes=(
                    *fixed.notes,
                    f"{root} is not in a git work tree: nothing was checked before writing",
                ),
            )
    return Fixed(result, fixed, written)


def suggestions(
    result: AuditResult,
    root: Path,
    mode: FixMode = "keep-old",
    min_confidence: str = "high",
    command: str | None = None,
) -> dict[str, Suggestion]:
    """The fixes a report suggests: per crossed change with at least one call site the fix
    rewrites, its own diff (only its call sites rewritten, so each block applies alone)."""
    from auditor.fix.apply import fix_project
    from auditor.fix.diff import unified_diff
    from auditor.suggestion import Suggestion, fix_command

    found: dict[str, Suggestion] = {}
    each = [f for site in result.findings for f in site.each()]
    for change in dict.fromkeys(f.change for f in each):
        alone = replace(result, findings=tuple(f for f in each if f.change == change))
        fixed = fix_project(alone, root, mode, min_confidence)
        if not fixed.applied:
            continue
        found[change] = Suggestion(
            change,
            mode,
            unified_diff(fixed),
            len(fixed.applied),
            len(fixed.left_alone),
            command or fix_command(result, str(root), mode),
        )
    return found
