"""The fix probes of an entry: its own probe rewritten by each table of its `[fix]`, for the
probe stage to run and judge (`ProbeSettings.rewrites`, `verify(rewrites=...)`; see
`auditor.probe.fixprobe`)."""

from __future__ import annotations

from auditor.fix.apply import rewrite_probe
from auditor.fix.spec import FIX_MODES
from auditor.knowledge.entry import SpecChange
from auditor.probe.fixprobe import ProbeRewrite


def rewrites(entry: SpecChange) -> tuple[ProbeRewrite, ...]:
    """The rewrites of the entry's probe, one per table its `[fix]` has; none when the entry has
    no fix or no probe, or its fix says the probe cannot be rewritten (`probe = false`)."""
    if entry.fix is None or entry.probe is None or not entry.fix.probe:
        return ()
    found: list[ProbeRewrite] = []
    for mode in FIX_MODES:
        if not entry.fix.transforms(mode):
            continue
        done = rewrite_probe(entry, mode)
        if done is not None and done.applied:
            found.append(
                ProbeRewrite(mode, done.new_source, tuple(a.transform for a in done.applied))
            )
            continue
        left = done.left_alone if done is not None else ()
        why = (
            "; ".join(dict.fromkeys(x.reason for x in left))
            or "no site in the probe that the fix rewrites"
        )
        found.append(ProbeRewrite(mode, None, (), f"the engine cannot rewrite the probe: {why}"))
    return tuple(found)
