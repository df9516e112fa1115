"""Fix probes: an entry's own probe rewritten by each mode of its `[fix]` and run, to prove the
rewrite.

Three runs make the proof on a transition old -> new: the original probe on old, the keep-old
rewrite on new (it must print what the original printed on old), and the adopt-new rewrite on
both (it must print the same on both). `kb verify` has one version only: there the keep-old
rewrite must print what the probe claims for the other side of the change, and the adopt-new
rewrite can only be seen to run (its output is shown; the comparison needs two versions).

With `ProbeSettings.shapes`, `auditor probe` and `fix --probe` also run every call shape each
table claims (`auditor.fix.shapes`): the original on the old build, the rewrite on the new one.
A shape whose rewrite raises where the original ran fails the check like a failed rewrite.

The rewrites come from the fix stage (`auditor.fix.probes.rewrites`, passed in as
`ProbeSettings.rewrites` and `verify(rewrites=...)`): the engine's rewrite of the probe's code,
scanned with the entry's own matchers, at every confidence (the probe is the knowledge's code,
not the project's). The probe stage runs and judges them; it never imports the fix engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from packaging.version import Version

from auditor.fix.spec import FIX_MODES, FixMode, Transform
from auditor.knowledge.entry import SpecChange, release
from auditor.models import FixCheck, ShapeRun, Transition
from auditor.probe.normalize import normalise
from auditor.probe.runner import ProbeResult


@dataclass(frozen=True, slots=True)
class ProbeRewrite:
    """One table's rewrite of an entry's probe: the code, or why there is none. `mode` is what
    the check proves; `table` is the `[fix]` table the code comes from: the same, except on a
    downgrade out of a change that hurts both ways, where the engine swaps them (plan._table)."""

    mode: FixMode
    code: str | None
    transforms: tuple[Transform, ...]  # the transforms applied, for their `requires`
    reason: str | None = None  # why the probe could not be rewritten
    table: FixMode | None = None  # None: the table of `mode`

    @property
    def source(self) -> FixMode:
        return self.table or self.mode

    def unmet(self, package: str, versions: tuple[Version, ...]) -> str | None:
        """Why the rewritten code is not expected to run on one of `versions`, or None."""
        for transform in self.transforms:
            for version in versions:
                if transform.requires is not None and not transform.requires.contains(
                    release(version), prereleases=True
                ):
                    return f"the {self.mode} rewrite needs {package}{transform.requires}, which {version} is not"
        return None


Rewrites = Callable[[SpecChange], tuple[ProbeRewrite, ...]]  # an entry's fix probes
# every call shape each entry's `[fix]` tables claim, run on the old and new interpreters
# (`auditor.fix.shapes.shape_proof`): keyed by entry id and table
ShapeProof = Callable[
    [Sequence[SpecChange], str, str], Mapping[tuple[str, FixMode], tuple[ShapeRun, ...]]
]


def probe_id(entry_id: str, mode: FixMode) -> str:
    """The id a fix probe runs under, beside its entry's own probe in the same batch."""
    return f"{entry_id}#fix:{mode}"


def for_transition(
    entry: SpecChange, found: tuple[ProbeRewrite, ...], transition: Transition
) -> tuple[ProbeRewrite, ...]:
    """The checks a transition calls for: each mode with the table the engine would use on it
    (swapped on a downgrade out of a change that hurts both ways)."""
    swap = entry.hazard == "both" and entry.crossing(transition) == "out of"
    by_table = {r.mode: r for r in found}
    checks = []
    for mode in FIX_MODES:
        table: FixMode = ("adopt-new" if mode == "keep-old" else "keep-old") if swap else mode
        if table in by_table:
            checks.append(replace(by_table[table], mode=mode, table=table))
    return tuple(checks)


def _same(a: ProbeResult, b: ProbeResult, roots: list[str]) -> bool:
    return normalise(a.observed, roots) == normalise(b.observed, roots)


def _failed_run(result: ProbeResult | None) -> str | None:
    if result is None:
        return "the rewritten probe did not run"
    if result.crashed or (result.error is not None and not result.output):
        return f"the rewritten probe failed: {result.error}"
    return None


def check_on_one(
    entry: SpecChange, rewrite: ProbeRewrite, installed: Version, result: ProbeResult | None
) -> FixCheck:
    """`kb verify`: what one version can show. keep-old: on a version past the change (or
    before it, for a change that hurts on downgrade) the rewrite prints what the probe claims
    for the other side. adopt-new: the rewrite runs; its output is shown."""
    assert entry.probe is not None
    shown = (str(installed),)
    if rewrite.code is None:
        return FixCheck(rewrite.mode, "failed", shown, reason=rewrite.reason)
    active = entry.active(installed)
    if rewrite.mode == "keep-old":
        # the keep-old table is written for crossing the way the change hurts: into it, or (an
        # added API) out of it; out of a change that hurts both ways the engine swaps the tables
        could_be_new_end = (
            entry.hazard in ("upgrade", "both") if active else entry.hazard == "downgrade"
        )
        if not could_be_new_end:
            side = "past" if active else "before"
            return FixCheck(
                rewrite.mode,
                "skipped",
                shown,
                reason=(
                    f"{entry.package} {installed} is {side} the change, where no transition this fix is for ends"
                ),
            )
    unmet = rewrite.unmet(entry.package, (installed,))
    if unmet:
        return FixCheck(rewrite.mode, "skipped", shown, reason=unmet)
    failure = _failed_run(result)
    if failure is not None and not entry.probe.raises:
        return FixCheck(rewrite.mode, "failed", shown, reason=failure)
    assert result is not None
    if rewrite.mode == "adopt-new":
        return FixCheck(
            rewrite.mode,
            "ran",
            shown,
            (result.observed,),
            reason="the same output on both versions needs two versions (auditor probe)",
        )
    expected = entry.probe.expected(not active)
    if normalise(result.observed, []) != normalise(expected, []):
        return FixCheck(
            rewrite.mode,
            "failed",
            shown,
            (result.observed,),
            reason=f"expected {expected!r}, what the original shows on the other side of the change",
        )
    return FixCheck(rewrite.mode, "verified", shown, (result.observed,))


@dataclass(frozen=True, slots=True)
class Side:
    """What one side of a transition ran: its version, the entry's original probe and the
    rewritten probes' results, keyed by `probe_id`."""

    version: Version
    original: ProbeResult | None
    results: dict[str, ProbeResult]
    roots: tuple[str, ...] = ()


def check_on_two(
    entry: SpecChange,
    rewrite: ProbeRewrite,
    old: Side,
    new: Side,
    shapes: tuple[ShapeRun, ...] = (),
) -> FixCheck:
    """`auditor probe`: keep-old on new prints what the original printed on old; adopt-new
    prints the same on old and new; and no claimed shape's rewrite raises on new where the
    original ran (`shapes`, each reported)."""
    check = _check_probe(entry, rewrite, old, new)
    raised = [s for s in shapes if s.status == "raised"]
    if raised and check.status != "skipped":
        first = raised[0]
        more = f" (and {len(raised) - 1} more shape(s))" if len(raised) > 1 else ""
        reason = (
            f"the {rewrite.mode} rewrite of {first.call} raises on {new.version} where the "
            f"original ran on {old.version}: {first.new}{more}"
        )
        check = replace(check, status="failed", reason=reason)
    return replace(check, shapes=shapes)


def _check_probe(entry: SpecChange, rewrite: ProbeRewrite, old: Side, new: Side) -> FixCheck:
    shown = (str(old.version), str(new.version))
    if rewrite.code is None:
        return FixCheck(rewrite.mode, "failed", shown, reason=rewrite.reason)
    ends = (old.version, new.version)
    unmet = rewrite.unmet(entry.package, ends)
    if unmet:
        return FixCheck(rewrite.mode, "skipped", shown, reason=unmet)
    key = probe_id(entry.id, rewrite.source)
    roots = [*old.roots, *new.roots]
    if rewrite.mode == "keep-old":
        before, after = old.original, new.results.get(key)
        if before is None or _failed_run(before) is not None:
            return FixCheck(
                rewrite.mode,
                "error",
                shown,
                reason=f"the original probe gave nothing to compare on {old.version}",
            )
    else:
        before, after = old.results.get(key), new.results.get(key)
        failure = _failed_run(before)
        if failure is not None:
            return FixCheck(rewrite.mode, "failed", shown, reason=f"{old.version}: {failure}")
    failure = _failed_run(after)
    if failure is not None:
        return FixCheck(rewrite.mode, "failed", shown, reason=f"{new.version}: {failure}")
    assert before is not None and after is not None
    outputs = (before.observed, after.observed)
    if not _same(before, after, roots):
        what = (
            "the keep-old rewrite on the new version does not print what the original printed on the old one"
            if rewrite.mode == "keep-old"
            else "the adopt-new rewrite prints differently on the two versions"
        )
        return FixCheck(rewrite.mode, "failed", shown, outputs, reason=what)
    return FixCheck(rewrite.mode, "verified", shown, outputs)
