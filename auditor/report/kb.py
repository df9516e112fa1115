"""Knowledge-base listings, entry pages and verification results."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from auditor.knowledge.entry import SpecChange
from auditor.report import serialize
from auditor.report.json import dumps
from auditor.report.serialize import change, envelope, transform

if TYPE_CHECKING:  # the probe machinery is imported by the commands that verify, not by every run
    from auditor.probe.verify import Verification


def _entry(e: SpecChange) -> dict[str, object]:
    data = change(e)
    data["probe"] = e.probe is not None
    if not e.harvested:  # a harvested change's `evidence` is its source line (serialize.change)
        data["evidence"] = e.evidence
    return data


def listing(entries: Iterable[SpecChange], fmt: str) -> str:
    entries = list(entries)
    if fmt == "json":
        return dumps(envelope(entries=[_entry(e) for e in entries]))
    lines = [f"{e.package:6} {e.introduced!s:8} {e.severity:6} {e.kind:15} {e.id}" for e in entries]
    return "\n".join(lines + [f"{len(entries)} entries"]) + "\n"


def page(e: SpecChange) -> str:
    """The entry's docs in ruff's manner, in Markdown (shared by `kb show` and docs/)."""
    span = f"{e.introduced}" + (f" (reverted in {e.until})" if e.until else "")
    parts = [
        f"# {e.id}",
        f"**{e.title}**",
        f"{e.package} {span} · {e.kind} · {e.consequence} · severity {e.severity} · {'silent' if e.silent else 'loud'}"
        + f" · hurts on {'upgrade and downgrade' if e.hazard == 'both' else e.hazard}"
        + (f" · Python {e.python}" if e.python else "")
        + (f" · follows {', '.join(e.follows)}" if e.follows else "")
        + (f" · evidence {e.evidence} (no harvested candidate shows it)" if e.evidence else ""),
        f"## What changed\n{e.docs.what}",
        f"## Why it matters\n{e.docs.why}",
        f"## Example\n```python\n{e.docs.before}\n```",
        f"## Keep the old behaviour\n```python\n{e.docs.keep_old}\n```",
        f"## Adopt the new behaviour\n```python\n{e.docs.adopt_new}\n```",
        "## Affected symbols\n" + "\n".join(f"- `{s}`" for s in e.symbols),
    ]
    if e.fix:
        parts.append(_mechanical(e))
    if e.docs.notes:
        parts.append(f"## Known problems\n{e.docs.notes}")
    if e.doubt:  # for maintainers of the knowledge base: no report format prints it
        parts.append(
            "## Maintainer's note: not verified\n"
            f"_Internal to the knowledge base; reports do not show it._\n\n{e.doubt}"
        )
    if e.probe:
        parts.append(
            f"## Probe\n```python\n{e.probe.code}\n```\nbefore: `{e.probe.before}`  \nafter: `{e.probe.after}`"
            + (f"  \nobserved on: {', '.join(e.probe.observed_on)}" if e.probe.observed_on else "")
            + (f"  \nabsent on: {', '.join(e.probe.absent_on)}" if e.probe.absent_on else "")
        )
    parts.append("## References\n" + "\n".join(f"- {r}" for r in e.references))
    return "\n\n".join(parts) + "\n"


def _mechanical(e: SpecChange) -> str:
    """The `[fix]` transforms `auditor fix` applies, one line each."""
    assert e.fix is not None
    lines = ["## Mechanical fix (`auditor fix`)"]
    for mode, transforms in (("keep-old", e.fix.keep_old), ("adopt-new", e.fix.adopt_new)):
        for t in transforms:
            fields = transform(t)
            what = ", ".join(
                f"{k}=`{v}`"
                for k, v in fields.items()
                if k not in ("on", "action", "note", "requires") and v
            )
            needs = f"; needs {e.package}{t.requires}" if t.requires else ""
            note = f": {t.note}" if t.note else ""
            lines.append(f"- {mode}, {t.on}: {t.action} ({what}){needs}{note}")
    if not e.fix.probe:
        lines.append(f"- its probe cannot be rewritten: {e.fix.probe_reason}")
    return "\n".join(lines)


def show(e: SpecChange, fmt: str) -> str:
    if fmt == "json":
        data = _entry(e)
        data["docs"] = {
            k: getattr(e.docs, k)
            for k in ("what", "why", "before", "keep_old", "adopt_new", "notes")
        }
        return dumps(envelope(entry=data))
    return page(e)


def verification(v: Verification, fmt: str) -> str:
    if fmt == "json":
        return dumps(
            envelope(
                package_versions=v.package_versions,
                python=v.python,
                results=[
                    {
                        "id": r.id,
                        "status": r.status,
                        "expected": r.expected,
                        "observed": r.observed,
                        "fixes": [serialize.fix_check(f) for f in r.fixes],
                    }
                    for r in v.results
                ],
            )
        )
    versions = ", ".join(
        f"{k} {val or '(not installed)'}" for k, val in sorted(v.package_versions.items())
    )
    lines = [f"Python {v.python}; {versions}"]
    for r in v.results:
        lines.append(f"{r.status.upper():5} {r.id}")
        if r.status in ("fail", "error"):
            lines.append(f"      expected: {r.expected!r}\n      observed: {r.observed!r}")
        elif r.status == "skip":
            lines.append(f"      {r.observed}")
        for f in r.fixes:
            lines.append(
                f"      {'FIX FAIL' if f.status in ('failed', 'error') else 'fix'}: {f.summary()}"
            )
            if f.status in ("failed", "error") and f.outputs:
                lines.append(f"        printed: {' / '.join(repr(o) for o in f.outputs)}")
    counts = {s: sum(r.status == s for r in v.results) for s in ("pass", "fail", "skip", "error")}
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()))
    checks = [f for r in v.results for f in r.fixes]
    if checks:
        fix_counts = {
            s: sum(f.status == s for f in checks)
            for s in ("verified", "ran", "failed", "skipped", "error")
        }
        lines.append("fix probes: " + ", ".join(f"{n} {s}" for s, n in fix_counts.items() if n))
    return "\n".join(lines) + "\n"
