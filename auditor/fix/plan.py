"""Which transform each finding gets, or why it gets none: the choice made before any code
is touched (confidence, the entry's `[fix]` for the mode, the matcher shape, `requires`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from packaging.version import Version

from auditor.fix.model import LeftAlone
from auditor.fix.spec import FixMode, Transform
from auditor.fix.transforms import Edit
from auditor.knowledge.entry import SpecChange, release
from auditor.models import Finding, Transition, rank

SHAPE_WORDS = {
    "call": "call",
    "method": "method call",
    "operator": "`//` operator",
    "import": "import",
    "attribute": "reference",
    "assign": "attribute assignment",
    "class": "subclass",
    "decorator": "decorator",
    "partial": "functools.partial binding",
}
Versions = tuple[Version | None, Version | None]  # the package's versions before and after


def plan(
    findings: Iterable[Finding],
    entries: Mapping[str, SpecChange],
    mode: FixMode,
    min_confidence: str = "high",
    versions: Versions | None = None,
) -> tuple[list[Edit], list[LeftAlone]]:
    """The edits to make, and the findings left alone with their reasons."""
    edits: list[Edit] = []
    left: list[LeftAlone] = []
    for finding in findings:
        chosen = choose(finding, entries.get(finding.change), mode, min_confidence, versions)
        if isinstance(chosen, LeftAlone):
            left.append(chosen)
        else:
            edits.append(Edit(finding, chosen[0], chosen[1:]))
    return edits, left


def choose(
    finding: Finding,
    entry: SpecChange | None,
    mode: FixMode,
    min_confidence: str,
    versions: Versions | None,
) -> tuple[Transform, ...] | LeftAlone:
    """The transforms of the mode that fit the finding and whose `requires` hold, in order (the
    rewrite takes the first the call site allows), or why there is none."""
    if rank(finding.confidence) < rank(min_confidence):
        why = f"{finding.confidence} confidence, below --min-confidence {min_confidence}"
        if finding.shape == "method":
            why += ": the receiver's type is not known for sure (ambiguous receiver)"
        return LeftAlone(finding, "below-confidence", why)
    table = _table(entry, mode, versions)
    transforms = entry.fix.transforms(table) if entry is not None and entry.fix is not None else ()
    if not transforms:
        other: FixMode = "adopt-new" if mode == "keep-old" else "keep-old"
        has_other = (
            entry is not None
            and entry.fix is not None
            and entry.fix.transforms(_table(entry, other, versions))
        )
        return LeftAlone(
            finding,
            "no-fix",
            f"no mechanical fix for this change with --{mode}"
            + (f" (--{other} has one)" if has_other else ""),
        )
    fitting = [t for t in transforms if t.on == finding.shape and _names(t, finding)]
    if not fitting:
        word = SHAPE_WORDS.get(finding.shape or "", "site of this kind")
        if any(t.on == finding.shape for t in transforms):
            word += f" of {finding.symbol}"
        return LeftAlone(
            finding, "no-fix", f"no mechanical fix for a {word} of this change with --{mode}"
        )
    usable = []
    why = ""
    for transform in fitting:
        if transform.requires is not None and versions is not None and entry is not None:
            ends = [v for v in (versions if mode == "keep-old" else versions[1:]) if v is not None]
            unmet = [
                v for v in ends if not transform.requires.contains(release(v), prereleases=True)
            ]
            if unmet:
                why = (
                    why
                    or f"the rewrite needs {entry.package}{transform.requires}, which {unmet[0]} is not"
                )
                continue
        usable.append(transform)
    if not usable:
        return LeftAlone(finding, "requires", why)
    return tuple(usable)


def _names(transform: Transform, finding: Finding) -> bool:
    """Whether the transform's `symbols` (none: all) take the finding's symbol. An import's
    finding names the module; the transform's symbols name what may be imported from it
    (the action checks the names the import binds)."""
    if not transform.symbols or finding.symbol in transform.symbols:
        return True
    return finding.shape == "import" and any(
        s.startswith(finding.symbol + ".") for s in transform.symbols
    )


def _table(entry: SpecChange | None, mode: FixMode, versions: Versions | None) -> FixMode:
    """The entry's transforms that do what `mode` asks on this transition. The tables are
    written for the way the change hurts: an entry that hurts one way only (a removal, an added
    API) has findings that way alone. One that hurts both ways (a behaviour or default change)
    has its tables written for crossing into it; crossing out of it (a downgrade), keeping the
    old behaviour means keeping the change's new one, and the other way round."""
    if entry is None or entry.hazard != "both" or versions is None or None in versions:
        return mode
    if entry.crossing(Transition(entry.package, versions[0], versions[1])) != "out of":
        return mode
    return "adopt-new" if mode == "keep-old" else "keep-old"
