"""The terminal report: readable in a TTY and in a CI log."""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, TextIO

from auditor.knowledge.entry import CONSEQUENCES, SpecChange
from auditor.models import AuditResult, Finding, InDependency, Transition, rank
from auditor.report.serialize import version_label
from auditor.report.summary import (
    Group,
    call_sites,
    clean_dependencies,
    files,
    layout,
    not_read,
    remedy,
    short,
    tally,
)

if TYPE_CHECKING:
    from rich.console import Console

STYLE = {"high": "bold red", "medium": "yellow", "low": "cyan"}
FILES_SHOWN = 5
SITES_SHOWN = 10
TIER = {
    "breaks": "break",
    "changes-results": "change results",
    "environment": "environment",
    "warns": "warn",
}


def escape(text: str) -> str:
    """`rich.markup.escape`; rich is imported by the text report only (a JSON scan starts faster)."""
    from rich.markup import escape as escaped

    return escaped(text)


def _location(f: Finding) -> str:
    cell = f"[cell {f.cell}]" if f.cell is not None else ""
    return f"{f.path}{cell}:{f.line}:{f.column}"


def _transition(t: Transition) -> str:
    name = t.variant or (short(t.environment) if t.environment else None)
    where = f" [{name}]" if name else ""
    return (
        f"{t.package} {version_label(t, 'old')} -> {version_label(t, 'new')} ({t.direction}){where}"
    )


def _crossing(change: SpecChange, result: AuditResult) -> str:
    for t in result.transitions:
        if t.package != change.package or t.old is None or t.new is None:
            continue
        if change.active(t.old) and not change.active(t.new):
            return "reverts on this transition: the code goes back to the old behaviour"
    return ""


def render(
    result: AuditResult, color: bool = False, width: int = 100, fix_command: str | None = None
) -> str:
    out = io.StringIO()
    write(result, out, color, width, fix_command)
    return out.getvalue()


def _fix_modes(change: SpecChange) -> str:
    """The modes in which `auditor fix` rewrites this change's call sites ("" when none)."""
    if change.fix is None:
        return ""
    return ", ".join(
        m
        for m, ts in (("keep-old", change.fix.keep_old), ("adopt-new", change.fix.adopt_new))
        if ts
    )


def _continued(code: str, indent: int = 18) -> str:
    """A snippet of several lines, its later lines under its first (under "keep old:  ")."""
    return escape(code.rstrip("\n").replace("\n", "\n" + " " * indent))


def write(
    result: AuditResult,
    out: TextIO,
    color: bool = False,
    width: int = 100,
    fix_command: str | None = None,
) -> None:
    """The report, line by line as it is made (a long report shows as it comes). `fix_command`:
    the `auditor fix ... --diff` that shows the mechanical rewrite of this project's findings."""
    from rich.console import Console

    # without colour no ANSI style at all (bold, dim), also when `out` is a terminal
    console = Console(
        file=out,
        force_terminal=color,
        color_system="auto" if color else None,
        width=width,
        highlight=False,
        soft_wrap=True,
    )
    if not result.transitions:
        console.print("No package the knowledge base knows changed between the two locks.")
    for t in result.transitions:
        console.print(f"[bold]{escape(_transition(t))}[/]")
    counts = tally(result)
    plan = layout(result)
    console.print(verdict(result) + "\n")
    low = f"; {counts.low_call_sites} more at low confidence" if counts.low_call_sites else ""
    unread = f", {not_read(result)} (listed at the end)" if result.unread() != (0, 0) else ""
    console.print(
        f"{len(result.changes)} spec change(s) crossed, {counts.call_sites} call site(s) "
        f"in {counts.files} file(s){low}{unread}\n"
    )
    for group in plan.confident:
        _group(console, group, result)
    _environment(console, result)
    _dependencies(console, result)
    fixable = [g for g in plan.confident if _fix_modes(g.change)]
    if fixable:
        shown = fix_command or "auditor fix OLD_LOCK NEW_LOCK --project DIR --keep-old --diff"
        console.print(
            f"{len(fixable)} of {len(plan.confident)} change(s) above have a mechanical fix "
            f"(high-confidence call sites by default; each one left alone is listed with why). "
            f"See the rewrite:\n  {escape(shown)}\n"
        )
    _not_checked(console, result)
    for title, groups in (
        ("only warn (not counted unless --fail-on-warnings)", plan.warnings),
        ("in vendored code (not counted unless --fail-on-vendored)", plan.vendored),
    ):
        if groups:
            console.print(
                f"{call_sites(f for g in groups for f in g.sites)} call site(s) {title}, collapsed:"
            )
            for group in groups:
                change = group.change
                shown = ", ".join(_location(f) for f in group.sites[:SITES_SHOWN])
                more = len(group.sites) - SITES_SHOWN
                console.print(
                    f"  [{STYLE[change.severity]}]{change.severity:6}[/] {escape(change.title)}  "
                    f"[dim]({change.id}, {change.consequence})[/]: {escape(shown)}"
                    + (f" and {more} more" if more > 0 else "")
                )
            console.print()
    if plan.low:
        console.print(
            f"{counts.low_call_sites} low-confidence call site(s), collapsed "
            "(the code in view does not show the affected case; by default no exit code counts them):"
        )
        for group in plan.low:
            change = group.change
            where = files(group.sites)
            shown = ", ".join(where[:FILES_SHOWN]) + (
                f" and {len(where) - FILES_SHOWN} more" if len(where) > FILES_SHOWN else ""
            )
            console.print(
                f"  [{STYLE[change.severity]}]{change.severity:6}[/] {escape(change.title)}  "
                f"[dim]({change.id})[/]: {call_sites(group.sites)} in {escape(shown)}"
            )
        console.print()
    used = [news for news in result.good_news if news.sites]
    if used:
        console.print("Good news (not findings; no exit code counts them):")
        for news in used:
            console.print(f"  {escape(news.message)}  [dim]({news.change.id})[/]")
            if news.sites:
                more = len(news.sites) - SITES_SHOWN
                shown = ", ".join(_location(f) for f in news.sites[:SITES_SHOWN]) + (
                    f" and {more} more" if more > 0 else ""
                )
                console.print(f"    at {escape(shown)}", style="dim")
        console.print()
    unused_news = [news.change.id for news in result.good_news if not news.sites]
    if unused_news:
        console.print(
            f"[dim]{len(unused_news)} crossed change(s) only help code that uses them, "
            f"none here: {escape(', '.join(unused_news))}[/]\n"
        )
    if plan.unused:
        console.print(f"{len(plan.unused)} other crossed change(s), no call site in this project:")
        for change in plan.unused:
            console.print(
                f"  [{STYLE[change.severity]}]{change.severity:6}[/] {change.package} "
                f"{change.introduced}  {escape(change.title)}  [dim]({change.id})[/]"
            )
        console.print()
    _probes(console, result)


def _environment(console: Console, result: AuditResult) -> None:
    """The locks' own problems, right after the call sites: those that fail the check first."""
    if not result.environment:
        return
    for env in sorted(result.environment, key=lambda e: (not e.gates, -rank(e.severity))):
        at = (f"{env.path}:{env.line}: " if env.line else f"{env.path}: ") if env.path else ""
        listed = "" if env.gates else " [dim](listed; does not fail the check)[/]"
        console.print(
            f"[{STYLE[env.severity]}]{env.severity.upper():6}[/] {escape(at + env.message)}{listed}"
        )
    console.print()


def verdict(result: AuditResult) -> str:
    """The first line after the transitions: whether the exit code fails, and on what."""
    gating = result.gating()
    tiers = Counter(result.change(f.change).consequence for f in gating)
    problems = result.gating_environment()
    said = ", ".join(
        f"{n} {TIER[c]}" for c, n in sorted(tiers.items(), key=lambda i: CONSEQUENCES.index(i[0]))
    )
    parts = [f"{call_sites(gating)} call site(s) need a change ({said})"] if gating else []
    reached = [d for d in result.dependencies if result.gates_dependency(d)]
    parts += (
        [f"{len(reached)} call site(s) in locked dependencies, reached from this code"]
        if reached
        else []
    )
    parts += [f"{len(problems)} environment problem(s)"] if problems else []
    counts = tally(result)
    apart = [
        f"{n} {what}"
        for n, what in (
            (counts.warnings, "only warn"),
            (counts.vendored, "in vendored code"),
            (counts.low_call_sites, "at low confidence"),
        )
        if n
    ]
    rest = f"; listed apart, not counted: {', '.join(apart)}" if apart else ""
    if parts:
        return f"[bold]FAIL[/]: {escape('; '.join(parts))}{escape(rest)}."
    if result.verdict() == "unchecked":
        return (
            f"[bold]NOT VERIFIED[/]: nothing counted for the exit code{escape(rest)}, but this audit "
            "crossed what it did not check (see below)."
        )
    unchecked = (
        " (see what this audit did not check below)" if result.notes or result.skipped else ""
    )
    return f"[bold]PASS[/]: nothing counted for the exit code{escape(rest)}{unchecked}."


def _group(console: Console, group: Group, result: AuditResult) -> None:
    """One crossed change and its call sites, each site with the other changes that touch it."""
    change = group.change
    flavour = "silent" if change.silent else "loud"
    console.print(
        f"[{STYLE[change.severity]}]{change.severity.upper():6}[/] [bold]{escape(change.title)}[/]"
    )
    console.print(
        f"       {change.id} · {change.consequence} · {change.kind}, {flavour} · {change.package} "
        f"{change.introduced}" + (f" (until {change.until})" if change.until else "")
    )
    reverts = _crossing(change, result)
    if reverts:
        console.print(f"       [italic]{reverts}[/]")
    for f in group.sites:
        console.print(
            f"       {escape(_location(f))}  {escape(f.symbol)}  ({f.confidence} confidence)"
        )
        console.print(f"           {_continued(f.snippet, 11)}", style="dim")
        if f.stages:
            console.print(f"           {escape(f.message)}")
        for other in f.also:
            console.print(
                f"           also {escape(other.change)} ({result.change(other.change).consequence}, "
                f"{other.confidence}): {escape(other.message)}"
            )
        if f.fix_note:
            console.print(f"           fix trade: {escape(f.fix_note)}")
    console.print(f"       keep old:  {_continued(change.docs.keep_old)}")
    console.print(f"       adopt new: {_continued(change.docs.adopt_new)}")
    if _fix_modes(change):
        # `auditor fix` rewrites high-confidence sites unless told otherwise
        weakest = min((f.confidence for f in group.sites), key=rank)
        option = "" if weakest == "high" else f" --min-confidence {weakest}"
        console.print(
            f"       fix:       `auditor fix{option}` rewrites these call sites ({_fix_modes(change)})"
        )
    console.print(f"       see:       {escape(change.references[0])}\n")


def _dependencies(console: Console, result: AuditResult) -> None:
    """The calls in locked dependencies: those the project is seen to reach, each at the project's
    line with the way through the package, then one line per package for the rest; one line when
    they were read and hold none (read and clean is not the same as not read)."""
    if not result.dependencies:
        clean = clean_dependencies(result, escape)
        if clean is not None:
            console.print(clean + "\n")
        return
    reached = [d for d in result.dependencies if d.via]
    console.print(f"In the locked dependencies ({escape(', '.join(result.dependencies_read))}):")
    for found in reached:
        change = result.change(found.finding.change)
        way = found.via[0]
        chain = " -> ".join(name.rsplit(".", 1)[-1] for name in way.chain)
        more = (
            f" (and {len(found.via) - 1} more call(s) of the project)" if len(found.via) > 1 else ""
        )
        console.print(
            f"  [{STYLE[change.severity]}]{change.severity.upper():6}[/] {escape(way.where)} "
            f"calls {escape(chain)}, which reaches {escape(found.package)} {found.version} "
            f"{escape(found.finding.path)}:{found.finding.line}{more}"
        )
        console.print(
            f"         {escape(change.title)}  [dim]({change.id}, {change.consequence})[/]"
        )
        console.print(f"         {escape(remedy(found))}")
    rest: dict[tuple[str, str], list[InDependency]] = defaultdict(list)
    for found in result.dependencies:
        if not found.via:
            rest[(found.package, str(found.version))].append(found)
    for (package, version), calls in rest.items():
        changes = sorted({c.finding.change for c in calls})
        console.print(
            f"  {escape(package)} {version}: {len(calls)} call(s) the project's code is not seen to "
            f"reach ({escape(', '.join(changes))}); {escape(remedy(calls[0]))}"
        )
    console.print()


def _not_checked(console: Console, result: AuditResult) -> None:
    """Everything the audit did not check or did beyond reading, in one block, one line per
    cause (files skipped for one reason are one line)."""
    reasons: dict[str, list[str]] = defaultdict(list)
    for skip in result.skipped:
        reasons[skip.reason].append(skip.path)
    lines = [f"note: {note}" for note in result.notes]
    for reason, paths in reasons.items():
        shown = ", ".join(paths[:FILES_SHOWN]) + (
            f" and {len(paths) - FILES_SHOWN} more" if len(paths) > FILES_SHOWN else ""
        )
        lines.append(
            f"skipped {paths[0]}: {reason}"
            if len(paths) == 1
            else f"skipped {len(paths)} files ({shown}): {reason}"
        )
    if not lines:
        return
    console.print("What this audit did not check, and how it read the inputs:")
    for line in lines:
        console.print(f"[dim]  {escape(line)}[/]")
    console.print()


def _probes(console: Console, result: AuditResult) -> None:
    """One line per probe; probes that share a reason (an environment that could not be built)
    are listed together under it once."""
    shared: dict[tuple[str, str], list[str]] = defaultdict(list)
    reasons = Counter(p.reason for p in result.probes if p.reason)
    for probe in result.probes:
        if probe.reason and reasons[probe.reason] > 1:
            shared[(probe.status, probe.reason)].append(probe.change)
            continue
        versions = ""
        if probe.old and probe.new:
            versions = f": {probe.old.version} {probe.old.output!r}, {probe.new.version} {probe.new.output!r}"
        reason = f" ({probe.reason})" if probe.reason else ""
        console.print(
            f"probe {escape(probe.change)}: {probe.status}{escape(versions)}{escape(reason)}"
        )
    for (status, reason), changes in shared.items():
        console.print(f"{len(changes)} probes {status}: {escape(reason)}")
        console.print(f"  [dim]{escape(', '.join(changes))}[/]")
