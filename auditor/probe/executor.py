"""`auditor probe` and `--probe`: run the crossed entries' probes on both sides of a transition.

For each transition: one environment with the old version and one with the new (built on demand,
or given), every probe batched in one interpreter per side, results cached, and per entry an
outcome: confirmed (each side shows what the entry claims for its version), not-reproduced (with
both outputs), error (a probe crashed, hung or raised), or skipped (with the reason).

An entry with a `[fix]` also has its probe rewritten by each mode and run in the same batches
(fixprobe.py); the outcome carries the verdicts ("keep-old verified on 1.12.1 / 1.13.0").

Probes are the knowledge base's code only; the project's code is never executed.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from auditor.cachefiles import default_cache_dir
from auditor.errors import ProbeError
from auditor.fix.spec import FixMode
from auditor.knowledge.entry import SpecChange
from auditor.models import ProbeOutcome, ProbeRun, ShapeRun, Transition
from auditor.probe.callsite import CallSite
from auditor.probe.environments import Environment, Provisioner, Unavailable, existing
from auditor.probe.fixprobe import (
    ProbeRewrite,
    Rewrites,
    ShapeProof,
    check_on_two,
    for_transition,
    probe_id,
)
from auditor.probe.fixprobe import Side as FixSide
from auditor.probe.interpreters import Interpreter, discover, resolve
from auditor.probe.normalize import normalise
from auditor.probe.results import ResultCache, probe_key
from auditor.probe.runner import CUDA_MEMORY_LIMIT, DEFAULT_MEMORY_LIMIT, ProbeResult, run_batch
from auditor.probe.sources import Sources
from auditor.progress import SILENT, Reporter


@dataclass(frozen=True, slots=True)
class ProbeSettings:
    """How to get the environments and run the probes; the CLI's options, with defaults."""

    cache_dir: Path | None = None  # None: the user cache directory
    use_cache: bool = True  # False: temporary environments, no stored results
    sources: Sources | None = None  # None: pip's configuration
    python_old: str | None = None  # a path or a version such as 3.10
    python_new: str | None = None
    env_old: str | None = None  # an existing environment (directory or interpreter)
    env_new: str | None = None
    timeout: float = 900.0  # per batch
    probe_timeout: float = 120.0
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT
    cuda_memory_limit: int | None = (
        CUDA_MEMORY_LIMIT  # for an environment with a CUDA build of torch
    )
    installer: str = "auto"
    allow_cuda: bool = False
    pythons: tuple[Interpreter, ...] = field(default=())  # candidates; empty: discovered
    rewrites: Rewrites | None = (
        None  # an entry's fix probes (`auditor.fix.probes.rewrites`); None: none run
    )
    shapes: ShapeProof | None = None  # the claimed shapes' proof (`auditor.fix.shapes`)


def cuda_build(environment: Environment) -> bool:
    """Whether the environment holds a CUDA build of torch: nvidia-* wheels among its packages (a
    provisioned one lists them all), or a local label such as 2.10.0+cu128."""
    torch = environment.packages.get("torch") or ""
    return "+cu" in torch or any(name.startswith("nvidia-") for name in environment.packages)


@dataclass(frozen=True, slots=True)
class _Side:
    name: str  # old, new
    requested: Version
    environment: Environment | None
    problem: str | None = None  # why there is no environment
    results: dict[str, ProbeResult] = field(default_factory=dict)
    failure: str | None = None  # the interpreter could not run at all

    def installed(self, package: str) -> str | None:
        return self.environment.packages.get(package) if self.environment else None


SiteRuns = dict[str, tuple[ProbeRun, ProbeRun]]  # call-site id -> what old and new showed


def probe_transitions(
    transitions: Sequence[Transition],
    entries: Sequence[SpecChange],
    settings: ProbeSettings = ProbeSettings(),
    reporter: Reporter = SILENT,
) -> tuple[ProbeOutcome, ...]:
    """Outcomes for the entries with probes among `entries`, for each transition crossing them."""
    return probe_with_sites(transitions, entries, (), settings, reporter)[0]


def probe_with_sites(
    transitions: Sequence[Transition],
    entries: Sequence[SpecChange],
    sites: Sequence[CallSite],
    settings: ProbeSettings = ProbeSettings(),
    reporter: Reporter = SILENT,
) -> tuple[tuple[ProbeOutcome, ...], SiteRuns]:
    """The outcomes, and the call sites evaluated in the same environments (same batches)."""
    outcomes: list[ProbeOutcome] = []
    site_runs: SiteRuns = {}
    with _cache_root(settings) as root:
        for transition in transitions:
            crossing = [e for e in entries if e.probe is not None and e.crossed_by(transition)]
            if crossing:
                outcomes += _probe(transition, crossing, sites, settings, root, reporter, site_runs)
    return tuple(sorted(outcomes, key=lambda o: o.change)), site_runs


@contextlib.contextmanager
def _cache_root(settings: ProbeSettings) -> Iterator[Path]:
    if settings.use_cache:
        root = settings.cache_dir or default_cache_dir()
        try:
            root.mkdir(parents=True, exist_ok=True)
        except (
            OSError
        ) as exc:  # the user's --cache-dir (or their cache folder) cannot hold anything
            raise ProbeError(
                f"cannot keep probe environments here: {exc.strerror or exc} "
                "(choose another --cache-dir, or --no-cache)",
                root,
            ) from exc
        yield root
        return
    temporary = Path(tempfile.mkdtemp(prefix="auditor-probe-envs-"))
    try:
        yield temporary
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _probe(
    transition: Transition,
    entries: list[SpecChange],
    sites: Sequence[CallSite],
    settings: ProbeSettings,
    root: Path,
    reporter: Reporter,
    site_runs: SiteRuns,
) -> list[ProbeOutcome]:
    assert transition.old is not None and transition.new is not None
    outcomes = [
        ProbeOutcome(e.id, "skipped", reason=e.probe.skip)
        for e in entries
        if e.probe and e.probe.skip
    ]
    runnable = [e for e in entries if e.probe is not None and not e.probe.skip]
    if not runnable:
        return outcomes
    sources = settings.sources if settings.sources is not None else Sources(use_pip_config=True)
    with (
        contextlib.closing(
            Provisioner(root / "envs", sources, settings.installer, settings.allow_cuda, reporter)
        ) as provisioner
    ):  # the environments stay ours (not rebuilt by other runs) until the probes are done
        return outcomes + _probe_sides(
            transition, runnable, sites, settings, root, reporter, site_runs, provisioner
        )


def _probe_sides(
    transition: Transition,
    runnable: list[SpecChange],
    sites: Sequence[CallSite],
    settings: ProbeSettings,
    root: Path,
    reporter: Reporter,
    site_runs: SiteRuns,
    provisioner: Provisioner,
) -> list[ProbeOutcome]:
    assert transition.old is not None and transition.new is not None
    package = transition.package
    requires = sorted({r for e in runnable if e.probe for r in e.probe.requires})
    packages = sorted({package, *requires})
    outcomes: list[ProbeOutcome] = []
    fixes: dict[str, tuple[ProbeRewrite, ...]] = {}
    shapes: Mapping[tuple[str, FixMode], tuple[ShapeRun, ...]] = {}
    cache = ResultCache(root / "results" if settings.use_cache else None)
    pythons = settings.pythons or discover()
    # the Pythons every entry holds on come first, so both sides can share one
    pythons = tuple(
        sorted(pythons, key=lambda i: not all(e.applies_to_python(i.version) for e in runnable))
    )

    sides = []
    chosen: str | None = None
    for name, version, env_path, python in (
        ("old", transition.old, settings.env_old, settings.python_old),
        ("new", transition.new, settings.env_new, settings.python_new),
    ):
        candidates = (resolve(python),) if python else _prefer(pythons, chosen)
        side = _environment(
            name, package, version, env_path, candidates, requires, packages, provisioner, reporter
        )
        if side.environment is not None:
            chosen = side.environment.python_version
        sides.append(side)
        if side.environment is None and name == "old":  # nothing to compare the new side with
            sides.append(side)
            break
    old, new = sides
    if old.environment is not None and new.environment is not None:
        # only what the installed versions cross, on Pythons it holds on, is worth running
        worth = [e for e in runnable if _judge(e, package, old, new, dry=True) is None]
        wanted = {e.id for e in worth}
        extra = {s.id: s.code for s in sites if s.finding.change in wanted}
        fixes = {e.id: settings.rewrites(e) for e in worth} if settings.rewrites else {}
        extra.update(
            {
                probe_id(i, r.mode): r.code
                for i, found in fixes.items()
                for r in found
                if r.code is not None
            }
        )
        old, new = (
            _run(side, package, worth, extra, packages, settings, cache, reporter)
            for side in (old, new)
        )
        proved = [e for e in worth if fixes.get(e.id)]
        if settings.shapes is not None and proved:
            assert old.environment is not None and new.environment is not None
            with reporter.task(f"running the call shapes of {len(proved)} fix(es)"):
                shapes = settings.shapes(proved, old.environment.python, new.environment.python)
        for site_id in extra:
            runs = [_site_run(side, package, site_id) for side in (old, new)]
            if runs[0] is not None and runs[1] is not None:
                site_runs[site_id] = (runs[0], runs[1])
    for entry in runnable:
        outcome = _judge(entry, package, old, new)
        assert outcome is not None
        checks = for_transition(entry, fixes.get(entry.id, ()), transition)
        outcomes.append(_with_fixes(outcome, entry, checks, package, old, new, shapes))
    return outcomes


def _with_fixes(
    outcome: ProbeOutcome,
    entry: SpecChange,
    found: tuple[ProbeRewrite, ...],
    package: str,
    old: _Side,
    new: _Side,
    shapes: Mapping[tuple[str, FixMode], tuple[ShapeRun, ...]],
) -> ProbeOutcome:
    """The outcome with the entry's fix probes judged on the same two versions, where both
    sides ran the entry's own probe, each with the shapes its table claims."""
    if not found or outcome.status not in ("confirmed", "not-reproduced"):
        return outcome
    sides = []
    for side in (old, new):
        assert side.environment is not None
        installed = side.installed(package) or str(side.requested)
        try:
            version = Version(installed)
        except InvalidVersion:
            version = side.requested
        roots = (str(side.environment.root),) if side.environment.root else ()
        sides.append(FixSide(version, side.results.get(entry.id), side.results, roots))
    checks = (
        check_on_two(entry, r, sides[0], sides[1], shapes.get((entry.id, r.source), ()))
        for r in found
    )
    return replace(outcome, fixes=tuple(checks))


def _prefer(pythons: Sequence[Interpreter], version: str | None) -> tuple[Interpreter, ...]:
    if version is None:
        return tuple(pythons)
    minor = ".".join(version.split(".")[:2])
    return tuple(sorted(pythons, key=lambda i: i.minor != minor))


def _environment(
    name: str,
    package: str,
    version: Version,
    env_path: str | None,
    candidates: Sequence[Interpreter],
    requires: Sequence[str],
    packages: Sequence[str],
    provisioner: Provisioner,
    reporter: Reporter,
) -> _Side:
    if env_path is not None:
        environment = existing(env_path, packages)
        if environment.packages.get(package) is None:
            return _Side(name, version, None, f"{package} is not installed in {env_path}")
        return _Side(name, version, environment)
    try:
        environment = provisioner.provision(package, str(version), requires, candidates)
    except Unavailable as exc:
        return _Side(name, version, None, exc.reason)
    return _Side(name, version, environment)


def _site_run(side: _Side, package: str, site_id: str) -> ProbeRun | None:
    result = side.results.get(site_id)
    if result is None or side.environment is None or result.crashed:
        return None
    return ProbeRun(
        side.installed(package) or str(side.requested),
        result.observed,
        side.environment.python_version,
    )


def _run(
    side: _Side,
    package: str,
    entries: Sequence[SpecChange],
    extra: dict[str, str],
    packages: list[str],
    settings: ProbeSettings,
    cache: ResultCache,
    reporter: Reporter,
) -> _Side:
    environment = side.environment
    assert environment is not None
    codes = {**{e.id: e.probe.code for e in entries if e.probe}, **extra}
    keys = {
        probe_id: probe_key(code, environment.packages, environment.python_version)
        for probe_id, code in codes.items()
    }
    results: dict[str, ProbeResult] = {}
    for entry_id, key in keys.items():
        hit = cache.get(key)
        if hit is not None:
            results[entry_id] = hit
    missing = {probe_id: code for probe_id, code in codes.items() if probe_id not in results}
    if missing:
        label = f"running {len(missing)} probe(s) on {package} {side.installed(package)} (Python {environment.python_version})"
        with reporter.task(label):
            try:
                batch = run_batch(
                    missing,
                    packages,
                    environment.python,
                    settings.timeout,
                    settings.probe_timeout,
                    settings.cuda_memory_limit
                    if cuda_build(environment)
                    else settings.memory_limit,
                )
            except ProbeError as exc:
                return _Side(side.name, side.requested, environment, failure=str(exc))
        for entry_id in batch.reruns:
            reporter.note(
                f"{entry_id} killed its batch on {package} {side.installed(package)}; it was rerun alone"
            )
        for entry_id, result in batch.results.items():
            results[entry_id] = result
            cache.put(keys[entry_id], result)
    for problem in dict.fromkeys(cache.problems):
        reporter.note(problem)  # the note keeper says each once
    return _Side(side.name, side.requested, environment, results=results)


def _matches(result: ProbeResult, expected: str, roots: list[str]) -> bool:
    return normalise(result.observed, roots) == normalise(expected, roots)


def _judge(
    entry: SpecChange, package: str, old: _Side, new: _Side, dry: bool = False
) -> ProbeOutcome | None:
    """The outcome for `entry`; with `dry`, only a skip decided before running anything, or None."""
    assert entry.probe is not None
    for side in (old, new):
        if side.environment is None:
            return ProbeOutcome(
                entry.id, "skipped", reason=f"{package} {side.requested}: {side.problem}"
            )
    runs: dict[str, ProbeRun] = {}
    expected: dict[str, str] = {}
    active: dict[str, bool] = {}
    for side in (old, new):
        environment = side.environment
        assert environment is not None
        installed = side.installed(package) or str(side.requested)
        if not entry.applies_to_python(environment.python_version):
            return ProbeOutcome(
                entry.id,
                "skipped",
                reason=f"holds on Python {entry.python} only; {package} {installed} runs on Python {environment.python_version}",
            )
        try:
            version = Version(installed)
        except InvalidVersion:
            version = side.requested
        unusable = entry.probe.unusable_on(version)
        if unusable:
            return ProbeOutcome(entry.id, "skipped", reason=f"{package} {installed}: {unusable}")
        active[side.name] = entry.active(version)
        expected[side.name] = entry.probe.expected(active[side.name])
    if active["old"] == active["new"]:
        return ProbeOutcome(
            entry.id,
            "skipped",
            reason=f"the environments' versions ({old.installed(package)}, {new.installed(package)}) do not cross this change",
        )
    if dry:
        return None
    problems = []
    mismatches = []
    for side in (old, new):
        environment = side.environment
        assert environment is not None
        installed = side.installed(package) or str(side.requested)
        if side.failure is not None:
            runs[side.name] = ProbeRun(installed, "", environment.python_version)
            problems.append(f"{installed}: {side.failure}")
            continue
        result = side.results.get(entry.id)
        if result is None:
            runs[side.name] = ProbeRun(installed, "", environment.python_version)
            problems.append(f"{installed}: the probe was not run")
            continue
        runs[side.name] = ProbeRun(installed, result.observed, environment.python_version)
        roots = [str(environment.root)] if environment.root else []
        if _matches(result, expected[side.name], roots):
            continue
        if result.crashed or (result.error is not None and not result.output):
            problems.append(f"{installed}: {result.error}")
        else:
            mismatches.append(f"{installed} was expected to show {expected[side.name]!r}")
    if problems:
        return ProbeOutcome(entry.id, "error", runs["old"], runs["new"], "; ".join(problems))
    if mismatches:
        return ProbeOutcome(
            entry.id, "not-reproduced", runs["old"], runs["new"], "; ".join(mismatches)
        )
    return ProbeOutcome(entry.id, "confirmed", runs["old"], runs["new"])
