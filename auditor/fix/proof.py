"""Call-site proof (`fix --probe`): where a rewritten site is literal-only (a call-site probe,
see auditor/probe/callsite.py), the site's probe and its rewrite are run on real environments
of both versions. keep-old is proven when the rewrite on the new version prints what the
original printed on the old one; adopt-new when the rewrite prints the same on both.

Each entry whose fix the project gets is proven too as `auditor probe` proves it: its probe
rewritten, and every call shape its table claims run (`auditor.fix.shapes`), the original on the
old build and the rewrite on the new one; those checks come back with the proofs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from auditor.fix.apply import findings_in_source, rewrite_source
from auditor.fix.model import EntryCheck, FixResult, Proof
from auditor.knowledge.entry import release
from auditor.models import Finding
from auditor.probe.callsite import CallSite, find_sites
from auditor.probe.executor import ProbeSettings, probe_with_sites
from auditor.probe.normalize import normalise
from auditor.progress import SILENT, NoteKeeper, Reporter


def _where(f: Finding) -> str:
    return f"{f.path}" + (f"[cell {f.cell}]" if f.cell is not None else "") + f":{f.line}"


def prove(
    result: FixResult, root: Path, settings: ProbeSettings, reporter: Reporter = SILENT
) -> tuple[tuple[Proof, ...], tuple[str, ...], tuple[EntryCheck, ...]]:
    """The proofs of the rewritten literal-only sites, notes on the sites left unproven, and
    the fix checks (with their shapes) of the entries applied in the fix's mode. Reads the
    files as they are before the rewrite is written."""
    base = root if root.is_dir() else root.parent
    sites, notes = find_sites([a.finding for a in result.applied], result.audit.changes, base)
    entries = {c.id: c for c in result.audit.changes}
    applied = [entries[i] for i in sorted({a.finding.change for a in result.applied})]
    versions = {t.package: (t.old, t.new) for t in result.audit.transitions}
    pairs: list[tuple[CallSite, CallSite]] = []
    for site in sites:
        entry = entries[site.finding.change]
        found = findings_in_source(site.code, [entry], "<site>")
        done = rewrite_source(
            site.code, found, [entry], result.mode, min_confidence="low", versions=versions
        )
        if not done.applied:
            notes.append(
                f"{_where(site.finding)}: not proven: the rewrite does not apply to the site's probe"
            )
            continue
        pairs.append((site, CallSite(site.finding, done.new_source)))
    if not pairs and not any(e.probe is not None for e in applied):
        return (), tuple(notes), ()
    releases = [
        replace(t, old=t.old and release(t.old), new=t.new and release(t.new))
        for t in result.audit.transitions
    ]
    keeper = NoteKeeper(reporter)
    outcomes, runs = probe_with_sites(
        releases, applied, [s for pair in pairs for s in pair], settings, keeper
    )
    checks = tuple(
        EntryCheck(o.change, c) for o in outcomes for c in o.fixes if c.mode == result.mode
    )
    why = next((f" ({o.reason})" for o in outcomes if o.status == "error" and o.reason), "")
    proofs = []
    for site, twin in pairs:
        if site.id not in runs or twin.id not in runs:
            notes.append(
                f"{_where(site.finding)}: not proven: its probe did not run on both versions{why}"
            )
            continue
        old = runs[site.id][0] if result.mode == "keep-old" else runs[twin.id][0]
        new = runs[twin.id][1]
        same = normalise(old.output) == normalise(new.output)
        proofs.append(Proof(site.finding, "proven" if same else "differs", old, new))
    return tuple(proofs), (*notes, *keeper.notes), checks
