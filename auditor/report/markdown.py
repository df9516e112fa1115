"""The reviewer's report: a verdict first, then each crossed change with its call sites.

Written for a GitHub PR comment and job summary. The comment limit is 65,536 characters;
when the full report is longer it is summarised (fewer rows per table, then no details,
then counts only), never cut in the middle of a table.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from urllib.parse import quote

from auditor import __version__
from auditor.knowledge.entry import SpecChange
from auditor.models import (
    AuditResult,
    EnvironmentFinding,
    Finding,
    GoodNews,
    InDependency,
    ProbeOutcome,
    Transition,
    rank,
)
from auditor.report.serialize import version_label
from auditor.report.summary import (
    Group,
    call_sites,
    clean_dependencies,
    files,
    is_low,
    layout,
    not_read,
    remedy,
    short,
    tally,
)
from auditor.suggestion import Suggestion

GITHUB_COMMENT_LIMIT = 65_536

ICON = {"high": "🔴", "medium": "🟠", "low": "🟡"}
KIND = {
    "behaviour": "behaviour change",
    "now-raises": "now raises",
    "removed": "removed",
    "deprecated": "deprecated",
    "default-changed": "default changed",
    "python-support": "Python support",
    "added": "added",
    "made-public": "made public",
    "warning-removed": "warning removed",
    "undeprecated": "no longer deprecated",
}
PROBE = {
    "confirmed": "✅ confirmed by a probe",
    "not-reproduced": "❔ probe did not reproduce it",
    "error": "⚠️ probe failed",
    "skipped": "➖ probe skipped",
}
FILES_SHOWN = 5
SITES_SHOWN = 10
HEADING = "## auditor: what this dependency bump changes for this code"


@dataclass(frozen=True, slots=True)
class Links:
    """Where call sites live on GitHub: links go to `path#Lline` at the head commit."""

    repository: str  # owner/name
    sha: str
    server_url: str = "https://github.com"
    prefix: str = ""  # the project's folder inside the repository, "" or ending with "/"

    def url(self, f: Finding) -> str:
        path = quote(f"{self.prefix}{f.path}")
        anchor = f"#L{f.line}" if f.cell is None else ""
        return f"{self.server_url.rstrip('/')}/{self.repository}/blob/{self.sha}/{path}{anchor}"


@dataclass(frozen=True, slots=True)
class _Budget:
    """How much of the report to show; relaxed step by step until it fits."""

    rows: int | None  # call-site rows per change table; None: all
    details: bool  # the collapsible what-changed/fix sections
    tables: bool = True  # False: one line per change, counts only


_BUDGETS = (
    _Budget(None, True),
    _Budget(50, True),
    _Budget(20, True),
    _Budget(10, True),
    _Budget(10, False),
    _Budget(3, False),
    _Budget(0, False, tables=False),
)


def _md(text: str) -> str:
    """Escape text for Markdown prose and table cells."""
    out = text.replace("&", "&amp;").replace("<", "&lt;")  # no stray HTML; ">" is harmless mid-line
    for char in "\\`*_[]|#":
        out = out.replace(char, "\\" + char)
    return out.replace("\n", " ")


def _code(text: str) -> str:
    """Inline code safe inside a table cell (backticks cannot hold `|` in GFM tables)."""
    flat = " ⏎ ".join(
        line.strip() for line in text.strip().splitlines()
    )  # a newline ends a table row
    escaped = html.escape(flat, quote=False).replace("|", "&#124;")
    return f"<code>{escaped}</code>"


def _fence(text: str, lang: str = "python") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text.strip()}\n{fence}"


def _version(t: Transition) -> str:
    return f"{version_label(t, 'old')} → {version_label(t, 'new')}"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def _reverts(change: SpecChange, result: AuditResult) -> bool:
    return any(
        t.package == change.package
        and t.old is not None
        and t.new is not None
        and change.active(t.old)
        and not change.active(t.new)
        for t in result.transitions
    )


def verdict(result: AuditResult) -> str:
    """One sentence a reviewer can act on, in the three cases that matter."""
    counts = tally(result)
    low = (
        f" {_plural(counts.low_call_sites, 'call site at low confidence is', 'call sites at low confidence are')}"
        " listed apart."
        if counts.low_call_sites
        else ""
    )
    if not result.changes:
        if not result.transitions:
            line = "✅ **No spec change crossed.** No package the knowledge base knows changes version."
        else:
            moves = ", ".join(f"{t.package} {_version(t)}" for t in result.transitions)
            # an addition has nothing to compare with: not a green check (the notes say so)
            mark = "" if any(t.direction == "added" for t in result.transitions) else "✅ "
            line = f"{mark}**No spec change crossed.** The knowledge base records no behaviour change for {moves}."
    elif not counts.call_sites and result.dependencies:
        line = (
            f"**{_plural(len(result.changes), 'spec change')} crossed.** No line of the scanned project "
            "calls an affected API itself; the locked dependencies below do." + low
        )
    elif not counts.call_sites:
        line = (
            f"✅ **{_plural(len(result.changes), 'spec change')} crossed, none touches this code.** "
            + (
                "No call site in the scanned project uses an affected API."
                if not low
                else "No call site in the scanned project is known to use an affected API." + low
            )
        )
    elif not result.gating():
        apart = [
            f"{n} {what}"
            for n, what in ((counts.warnings, "only warn"), (counts.vendored, "in vendored code"))
            if n
        ]
        rest = counts.call_sites - counts.warnings - counts.vendored
        said = [f"listed apart: {', '.join(apart)}"] if apart else []
        said += (
            [f"{'the other ' if apart else ''}{rest} not counted under the options given"]
            if rest > 0
            else []
        )
        line = (
            f"✅ **No call site counts for the exit code.** {_plural(counts.call_sites, 'call site')} "
            f"touched by crossed changes; {'; '.join(said)}." + low
        )
    else:
        gating = result.gating()
        touched = {f.change for f in gating}
        silent = sum(result.change(c).silent for c in touched)
        worst = max((result.change(f.change).severity for f in gating), key=rank)
        tiers = [
            f"{n} {what}"
            for n, what in (
                (call_sites(f for f in gating if result.change(f.change).consequence == c), what)
                for c, what in (
                    ("breaks", "break"),
                    ("changes-results", "change results"),
                    ("environment", "environment"),
                    ("warns", "only warn"),
                )
            )
            if n
        ]
        apart = [
            f"{_plural(n, 'more call site')} {what}"
            for n, what in (
                (counts.warnings if not result.gate.warnings else 0, "only warn"),
                (counts.vendored if not result.gate.vendored else 0, "in vendored code"),
            )
            if n
        ]
        line = (
            f"{ICON[worst]} **{_plural(call_sites(gating), 'call site')} "
            f"in {_plural(len({f.path for f in gating}), 'file')} affected** "
            f"by {_plural(len(touched), 'spec change')}"
            + (
                f" (of {len(result.changes)} crossed)"
                if len(touched) != len(result.changes)
                else ""
            )
            + f": {', '.join(tiers)}. Check each one below before merging."
            + (f" {', '.join(apart)}: listed apart, not counted." if apart else "")
            + low
        )
        if silent:
            line += (
                f" {_plural(silent, 'of these changes is', 'of these changes are')} silent: the code keeps running "
                "with different results, so tests may not catch it."
            )
    unread = not_read(result)
    if unread:
        line += f" {unread[0].upper()}{unread[1:]} (listed below)."
    if result.verdict() == "unchecked" and line.startswith(
        "✅ "
    ):  # no green check over what was not checked
        causes = len(result.unchecked) + result.unread()[0]
        line = (
            f"⚠️ {line.removeprefix('✅ ')} **Not verified in full:** "
            f"{_plural(causes, 'thing')} this audit crossed and did not check (listed below)."
        )
    reached = [d for d in result.dependencies if result.gates_dependency(d)]
    if reached:
        worst_dep = max((result.change(d.finding.change).severity for d in reached), key=rank)
        line = line.removeprefix(
            "✅ "
        )  # no green check over a break in a dependency the code calls
        line += (
            f"\n\n{ICON[worst_dep]} **{_plural(len(reached), 'call site')} in locked dependencies**, "
            "reached from this code (see below)."
        )
    problems = [e for e in _problems(result) if e.gates]
    if problems:
        worst_env = max((e.severity for e in problems), key=rank)
        line = line.removeprefix("✅ ")  # no green check over problems of the environment
        line += (
            f"\n\n{ICON[worst_env]} **{_plural(len(problems), 'compatibility problem')}** "
            "with the new versions (see below)."
        )
    return _horizon(result) + line


def _horizon(result: AuditResult) -> str:
    """Before any green verdict: the moves the knowledge base never reviewed, the files of newer
    syntax the scan could not read."""
    horizon = dict(result.horizon)
    blind = dict.fromkeys(
        e.package for e in result.environment if e.kind == "beyond-knowledge" and e.package
    )
    if not blind and not any(e.kind == "newer-syntax" for e in result.environment):
        return ""
    lines = [
        f"{ICON['medium']} **Not reviewed past {horizon[package]} ({package})**: the knowledge base ends there; "
        "changes in later releases are not in this report, whatever it says below."
        if package in horizon
        else f"{ICON['medium']} **Not reviewed ({package})**: the knowledge base has no reviewed entry for {package}; "
        "its changes are not reviewed in this report, whatever it says below."
        for package in blind
    ]
    lines += [
        f"{ICON[e.severity]} **Not read**: {_md(e.message)}"
        for e in result.environment
        if e.kind == "newer-syntax"
    ]
    return "\n\n".join(lines) + "\n\n"


def summary_lines(result: AuditResult) -> list[str]:
    """`torch 1.12.1 -> 1.13.0: 3 changes, 7 call sites`, one per transition."""
    lines = []
    for t in result.transitions:
        crossed = [c for c in result.changes if c.crossed_by(t)]
        ids = {c.id for c in crossed}
        sites = call_sites(f for f in result.findings if f.change in ids and not is_low(f))
        low = call_sites(f for f in result.findings if f.change in ids and is_low(f))
        name = t.variant or (short(t.environment) if t.environment else None)
        where = f" ({name})" if name else ""
        lines.append(
            f"**{t.package} {version_label(t, 'old')} -> {version_label(t, 'new')}**{_md(where)}: "
            f"{_plural(len(crossed), 'change')}, {_plural(sites, 'call site')}"
            + (f" (and {low} at low confidence)" if low else "")
        )
    return lines


def _location(f: Finding, links: Links | None) -> str:
    text = f"{f.path}:{f.line}" if f.cell is None else f"{f.path} cell {f.cell}, line {f.line}"
    label = _md(text)
    return f"[{label}]({links.url(f)})" if links else label


def _table(sites: Sequence[Finding], links: Links | None, rows: int | None) -> list[str]:
    shown = sites if rows is None else sites[:rows]
    lines = []
    if shown:
        lines += ["| Where | API | Confidence | Code |", "| --- | --- | --- | --- |"]
        lines += [
            f"| {_location(f, links)} | `{f.symbol}`{_also(f)} | {f.confidence} | {_code(f.snippet)} |"
            for f in shown
        ]
    hidden = len(sites) - len(shown)
    if hidden:
        files = ", ".join(sorted({f"`{f.path}`" for f in sites[len(shown) :]}))
        lines += ["", f"…and {_plural(hidden, 'more call site')} in {files}."]
    return lines


def _also(f: Finding) -> str:
    """The other crossed changes at the call site, and what its composed fix trades."""
    text = "".join(
        f"<br>also `{a.change}` ({a.confidence})" for a in f.also
    )  # their reasons: in the details
    return text + (f"<br>fix trade: {_md(f.fix_note)}" if f.fix_note else "")


def _probe_line(outcome: ProbeOutcome | None) -> str:
    if outcome is None:
        return "probe: not run"
    text = PROBE[outcome.status]
    text = f"{text} ({_md(outcome.reason)})" if outcome.reason else text
    fixes = "; ".join(_md(check.summary()) for check in outcome.fixes)
    return f"{text}; fix {fixes}" if fixes else text


def _details(
    change: SpecChange, sites: Sequence[Finding], outcome: ProbeOutcome | None
) -> list[str]:
    docs = change.docs
    body = [
        "<details><summary>What changed, and how to fix it</summary>",
        "",
        f"**What changed.** {docs.what}",
        "",
        f"**Why it matters.** {docs.why}",
        "",
        "**Example**",
        "",
        _fence(docs.before),
        "",
        "**Keep the old behaviour**",
        "",
        _fence(docs.keep_old),
        "",
        "**Adopt the new behaviour**",
        "",
        _fence(docs.adopt_new),
    ]
    messages = list(
        dict.fromkeys(f.message for f in sites if f.message and f.message != change.title)
    )
    messages += list(dict.fromkeys(f"also {a.change}: {a.message}" for f in sites for a in f.also))
    if messages:
        body += ["", "**What to check at these call sites**", ""]
        body += [f"- {_md(m)}" for m in messages]
    if outcome is not None and (outcome.old or outcome.new):
        body += ["", "**Probe**", ""]
        for side in (outcome.old, outcome.new):
            if side is not None:
                body.append(f"- {change.package} {side.version}: {_code(side.output)}")
    if docs.notes:
        body += ["", f"**Known problems.** {docs.notes}"]
    body += [
        "",
        "**References:** " + " · ".join(f"<{r}>" for r in change.references),
        "",
        "</details>",
    ]
    return body


def _suggested(s: Suggestion) -> list[str]:
    """The engine's rewrite of this change's call sites, collapsed: the diff and the command."""
    left = (
        f"; {_plural(s.left_alone, 'call site')} left alone (`auditor fix` says why)"
        if s.left_alone
        else ""
    )
    return [
        f"<details><summary>Suggested fix ({s.mode}: {_plural(s.rewritten, 'call site')} rewritten{left})</summary>",
        "",
        _fence(s.diff.rstrip("\n"), "diff"),
        "",
        "Apply it locally:",
        "",
        _fence(s.command, "sh"),
        "",
        "</details>",
    ]


def _change_section(
    change: SpecChange,
    sites: Sequence[Finding],
    result: AuditResult,
    links: Links | None,
    budget: _Budget,
    suggested: Mapping[str, Suggestion],
) -> list[str]:
    outcome = next((p for p in result.probes if p.change == change.id), None)
    flavour = "silent: results change, nothing raises" if change.silent else "loud: raises or warns"
    since = f"{change.package} {change.introduced}" + (
        f" (reverted in {change.until})" if change.until else ""
    )
    head = [
        f"### {ICON[change.severity]} {_md(change.title)}",
        "",
        (
            f"`{change.id}` · {change.severity} · {KIND.get(change.kind, change.kind)} ({flavour}) · "
            f"since {since} · {_probe_line(outcome)}"
        ),
    ]
    if _reverts(change, result):
        head += [
            "",
            "_This transition goes back across the change: the code returns to the old behaviour._",
        ]
    stages = list(dict.fromkeys(s for f in sites for s in f.stages))
    if stages:
        earlier = ", ".join(
            f"{_md(result.change(s).title)} (`{s}`, {result.change(s).introduced})" for s in stages
        )
        head += [
            "",
            f"_Crossed in the same bump as its earlier stage: {earlier}; each line is listed once, here._",
        ]
    if not budget.tables:
        files = len({f.path for f in sites})
        return head + ["", f"{_plural(len(sites), 'call site')} in {_plural(files, 'file')}."]
    head += [""] + _table(sites, links, budget.rows)
    if budget.details:
        head += [""] + _details(change, sites, outcome)
        if change.id in suggested:
            head += [""] + _suggested(suggested[change.id])
    else:
        fix = f"Fix: keep the old behaviour with {_code(change.docs.keep_old)}"
        if change.references:
            fix += f"; details: <{change.references[0]}>"
        head += ["", fix + "."]
    return head


def _unused(changes: list[SpecChange]) -> list[str]:
    lines = [
        f"<details><summary>{_plural(len(changes), 'other crossed change')}, not used by this code</summary>",
        "",
        "| Severity | Change | Since | Reference |",
        "| --- | --- | --- | --- |",
    ]
    for c in changes:
        ref = f"<{c.references[0]}>" if c.references else ""
        lines.append(
            f"| {ICON[c.severity]} {c.severity} | {_md(c.title)} (`{c.id}`) | "
            f"{c.package} {c.introduced} | {ref} |"
        )
    return lines + ["", "</details>"]


def _low(groups: Sequence[Group]) -> list[str]:
    sites = call_sites(f for g in groups for f in g.sites)
    lines = [
        (
            f"<details><summary>{_plural(sites, 'call site')} at low confidence: the code in view "
            "does not show the affected case (not counted in the exit code by default)</summary>"
        ),
        "",
        "| Severity | Change | Call sites | Files |",
        "| --- | --- | --- | --- |",
    ]
    for g in groups:
        c = g.change
        where = files(g.sites)
        shown = ", ".join(f"`{path}`" for path in where[:FILES_SHOWN])
        if len(where) > FILES_SHOWN:
            shown += f" and {len(where) - FILES_SHOWN} more"
        lines.append(
            f"| {ICON[c.severity]} {c.severity} | {_md(c.title)} (`{c.id}`) | {call_sites(g.sites)} | {shown} |"
        )
    return lines + ["", "</details>"]


def _good_news(news: Sequence[GoodNews], links: Links | None) -> list[str]:
    used = [g for g in news if g.sites]
    unused = ", ".join(f"`{g.change.id}`" for g in news if not g.sites)
    if not used:
        return [
            f"_{_plural(len(news), 'crossed change')} only help code that uses them, none here: {unused}._"
        ]
    lines = ["### Good news", "", "Not findings: these changes only help this code.", ""]
    if unused:
        lines[-2] += f" (Also crossed, unused here: {unused}.)"
    for g in used:
        line = f"- {_md(g.message)} (`{g.change.id}`)"
        if g.sites:
            shown = ", ".join(_location(f, links) for f in g.sites[:SITES_SHOWN])
            more = len(g.sites) - SITES_SHOWN
            line += f" At: {shown}" + (f" and {more} more" if more > 0 else "") + "."
        lines.append(line)
    return lines


def _dependencies(result: AuditResult) -> list[str]:
    """The calls in locked dependencies: a table of those the project reaches, then one line per
    package for the rest."""
    lines = [f"### In the locked dependencies ({_md(', '.join(result.dependencies_read))})", ""]
    reached = [d for d in result.dependencies if d.via]
    if reached:
        lines += [
            "| | project line | way in | dependency line | change | what to do |",
            "|---|---|---|---|---|---|",
        ]
        for found in reached:
            change, way = result.change(found.finding.change), found.via[0]
            chain = " → ".join(name.rsplit(".", 1)[-1] for name in way.chain)
            lines.append(
                f"| {ICON[change.severity]} | {_code(way.where)} | {_md(chain)} | "
                f"{_md(found.package)} {found.version} {_code(f'{found.finding.path}:{found.finding.line}')} | "
                f"{_md(change.title)} | {_md(remedy(found))} |"
            )
        lines.append("")
    rest: dict[tuple[str, str], list[InDependency]] = {}
    for found in result.dependencies:
        if not found.via:
            rest.setdefault((found.package, str(found.version)), []).append(found)
    for (package, version), calls in rest.items():
        lines.append(
            f"- {_md(package)} {version}: {_plural(len(calls), 'call')} this code is not seen to reach "
            f"({_md(', '.join(sorted({c.finding.change for c in calls})))}); {_md(remedy(calls[0]))}"
        )
    return lines


def _problems(result: AuditResult) -> list[EnvironmentFinding]:
    """The environment items of the Compatibility table: a move the knowledge base did not
    review, and files of newer syntax not read, are said before the verdict already."""
    return [e for e in result.environment if e.kind not in ("beyond-knowledge", "newer-syntax")]


def _environment(result: AuditResult) -> list[str]:
    lines = ["### Compatibility", "", "| Severity | Package | Problem |", "| --- | --- | --- |"]
    for e in sorted(_problems(result), key=lambda e: (not e.gates, -rank(e.severity))):
        at = (f"`{e.path}:{e.line}`: " if e.line else f"`{e.path}`: ") if e.path else ""
        listed = "" if e.gates else " (listed; does not fail the check)"
        lines.append(
            f"| {ICON[e.severity]} {e.severity} | {_md(e.package or '')} | {at}{_md(e.message)}{listed} |"
        )
    return lines


def _probes(result: AuditResult) -> list[str]:
    lines = ["### Probes", "", "| Change | Status | Old | New |", "| --- | --- | --- | --- |"]
    for p in result.probes:
        old = _code(p.old.output) if p.old else ""
        new = _code(p.new.output) if p.new else ""
        lines.append(f"| `{p.change}` | {PROBE[p.status]} | {old} | {new} |")
    return lines


def _not_checked(result: AuditResult, notes: Sequence[str]) -> list[str]:
    """What the audit did not check (and how it read the inputs), one line per cause: files
    skipped for one reason are one line; a remark on a file that was read names the file."""
    reasons: dict[tuple[str, str], list[str]] = {}
    for s in result.skipped:
        reasons.setdefault((s.kind, s.reason), []).append(s.path)
    lines = ["### Not checked, and how the inputs were read", ""]
    lines += [f"- {_md(note)}" for note in notes]
    for (kind, reason), paths in reasons.items():
        shown = ", ".join(f"`{p}`" for p in paths[:FILES_SHOWN]) + (
            f" and {len(paths) - FILES_SHOWN} more" if len(paths) > FILES_SHOWN else ""
        )
        if kind == "note":
            lines.append(f"- {shown}: {_md(reason)}")
        else:
            what = _plural(len(paths), "folder" if kind == "folder" else "file")
            lines.append(f"- {what} not read ({_md(reason)}): {shown}")
    return lines


def _collapsed(title: str, groups: Sequence[Group], links: Links | None) -> list[str]:
    """Confident call sites that do not gate by default, one row per change."""
    sites = call_sites(f for g in groups for f in g.sites)
    lines = [
        f"<details><summary>{_plural(sites, 'call site')} {title}</summary>",
        "",
        "| Severity | Change | Where |",
        "| --- | --- | --- |",
    ]
    for g in groups:
        c = g.change
        shown = ", ".join(_location(f, links) for f in g.sites[:SITES_SHOWN])
        if len(g.sites) > SITES_SHOWN:
            shown += f" and {len(g.sites) - SITES_SHOWN} more"
        lines.append(f"| {ICON[c.severity]} {c.severity} | {_md(c.title)} (`{c.id}`) | {shown} |")
    return lines + ["", "</details>"]


def _document(
    result: AuditResult,
    links: Links | None,
    notes: Sequence[str],
    budget: _Budget,
    suggested: Mapping[str, Suggestion] = MappingProxyType({}),
) -> str:
    plan = layout(result)
    parts: list[str] = [HEADING, ""]
    parts += [verdict(result), ""]
    summary = summary_lines(result)
    if summary:
        parts += ["  \n".join(summary), ""]
    for group in plan.confident:
        parts += _change_section(group.change, group.sites, result, links, budget, suggested) + [""]
    if _problems(result):  # the locks' own problems, right after the call sites
        parts += _environment(result) + [""]
    if result.dependencies:
        parts += _dependencies(result) + [""]
    elif (clean := clean_dependencies(result, _md)) is not None:
        parts += [clean, ""]
    if notes or result.skipped:
        parts += _not_checked(result, notes) + [""]
    for title, groups in (
        (
            "only warn: a new warning, the code keeps working (not counted unless --fail-on-warnings)",
            plan.warnings,
        ),
        ("in vendored code (not counted unless --fail-on-vendored)", plan.vendored),
    ):
        if groups:
            parts += _collapsed(title, groups, links) + [""]
    if plan.low:
        parts += _low(plan.low) + [""]
    if result.good_news:
        parts += _good_news(result.good_news, links if budget.tables else None) + [""]
    if plan.unused:
        parts += _unused(list(plan.unused)) + [""]
    if result.probes:
        parts += _probes(result) + [""]
    elif result.changes:
        parts += ["_No probe was run; `--probe` runs each change's probe on both versions._", ""]
    if budget != _BUDGETS[0]:
        shown = "all" if budget.rows is None else f"at most {budget.rows}"
        parts += [
            (
                f"> [!NOTE]\n> Shortened to fit GitHub's {GITHUB_COMMENT_LIMIT:,}-character limit "
                f"({shown if budget.tables else 'no'} call sites per change"
                f"{'' if budget.details else ', no fix details'}). "
                "The job summary and `--format json` have the full report."
            ),
            "",
        ]
    parts.append(f"<sub>auditor {__version__}</sub>")
    return "\n".join(parts) + "\n"


def render(
    result: AuditResult,
    links: Links | None = None,
    notes: Sequence[str] = (),
    max_length: int = GITHUB_COMMENT_LIMIT,
    suggested: Mapping[str, Suggestion] = MappingProxyType({}),
) -> str:
    """The report in GitHub-flavoured Markdown, no longer than `max_length` when it can be.

    `links` turns locations into links at the head commit; `notes` are short lines shown
    under the heading (the bump a PR names, the lockfiles that changed), after the result's own.
    `suggested`: per change id, the engine's rewrite (report/suggest.py), shown collapsed
    under the change's details.
    """
    notes = [*result.notes, *notes]
    for budget in _BUDGETS:
        text = _document(result, links, notes, budget, suggested)
        if len(text) <= max_length:
            return text
    return _minimal(result, notes, max_length)


def _minimal(result: AuditResult, notes: Sequence[str], max_length: int) -> str:
    """The last resort: verdict, summary, and as many one-line changes as fit, whole lines only."""
    plan = layout(result)
    head = [HEADING, "", verdict(result), "", "  \n".join(summary_lines(result)), ""]
    if notes:
        head += ["  \n".join(f"_{_md(note)}_" for note in notes), ""]
    note = (
        f"> [!NOTE]\n> Shortened to fit GitHub's {GITHUB_COMMENT_LIMIT:,}-character limit. "
        "The job summary and `--format json` have the full report."
    )
    tail = ["", note, "", f"<sub>auditor {__version__}</sub>"]
    budget = max_length - len("\n".join(head + tail)) - 80  # room for the "and N more" line
    lines: list[str] = []
    groups = [*plan.confident, *plan.low, *(Group(c, ()) for c in plan.unused)]
    for i, group in enumerate(groups):
        change = group.change
        low = " at low confidence" if group.sites and all(is_low(f) for f in group.sites) else ""
        line = (
            f"- {ICON[change.severity]} {_md(change.title)} (`{change.id}`): "
            f"{_plural(call_sites(group.sites), 'call site')}{low}"
        )
        if budget - len(line) - 1 < 0:
            lines.append(f"- …and {_plural(len(groups) - i, 'more change')}")
            break
        budget -= len(line) + 1
        lines.append(line)
    return "\n".join(head + lines + tail) + "\n"
