"""Rewriting sources, files and notebooks, and writing the result to the project."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from auditor.fix.layout import plain, relaid
from auditor.fix.model import Applied, FileRewrite, FixResult, LeftAlone, Rewrite
from auditor.fix.moves import ImportTable, Move, move_imports
from auditor.fix.notebook import cell_sources, mask, replace_sources
from auditor.fix.plan import Versions, plan
from auditor.fix.spec import FixMode
from auditor.fix.transforms import apply_edits, bound_names
from auditor.knowledge.entry import SpecChange
from auditor.models import AuditResult, Finding
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_source


def _entries(entries: Mapping[str, SpecChange] | Iterable[SpecChange]) -> Mapping[str, SpecChange]:
    return entries if isinstance(entries, Mapping) else {e.id: e for e in entries}


def rewrite_source(
    source: str,
    findings: Sequence[Finding],
    entries: Mapping[str, SpecChange] | Iterable[SpecChange],
    mode: FixMode,
    *,
    min_confidence: str = "high",
    versions: Mapping[str, Versions] | None = None,
    bound: frozenset[str] = frozenset(),
    table: ImportTable | None = None,
    deferred: list[Move] | None = None,
) -> Rewrite:
    """`source` (a module, or a notebook cell with its IPython lines masked) with the fixes of
    `mode` applied to `findings` (the scan's findings in this source). A notebook cell passes
    the `table` of the notebook's imports and a `deferred` list for the import lines to rewrite
    (moves.py), which may be in another cell."""
    by_id = _entries(entries)
    edits, left = [], []
    for package, group in _by_package(findings, by_id).items():
        planned, refused = plan(group, by_id, mode, min_confidence, (versions or {}).get(package))
        edits += planned
        left += refused
    text = plain(source)  # libcst gives some line endings back otherwise: layout.py
    new, applied, refused_here = apply_edits(text, edits, bound, table, deferred)
    return Rewrite(
        source if new == text else relaid(source, new),
        tuple(applied),
        tuple(_ordered(left + refused_here)),
    )


def _by_package(
    findings: Iterable[Finding], entries: Mapping[str, SpecChange]
) -> dict[str, list[Finding]]:
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        entry = entries.get(f.change)
        groups[entry.package if entry else ""].append(f)
    return groups


def _ordered(left: Iterable[LeftAlone]) -> list[LeftAlone]:
    return sorted(
        left,
        key=lambda x: (x.finding.cell or 0, x.finding.line, x.finding.column, x.finding.change),
    )


def findings_in_source(
    source: str, entries: Iterable[SpecChange], path: str = "<source>"
) -> list[Finding]:
    """The scan's findings of these entries' matchers in one module's source (a probe's code)."""
    return scan_source(source, path, RuleIndex.build(entries))


def rewrite_probe(entry: SpecChange, mode: FixMode) -> Rewrite | None:
    """The entry's own probe code rewritten with its own fix of `mode`, every site the matchers
    find counted (the probe is known to be affected); None when the entry has no probe."""
    if entry.probe is None:
        return None
    findings = findings_in_source(entry.probe.code, [entry], "<probe>")
    return rewrite_source(entry.probe.code, findings, [entry], mode, min_confidence="low")


def rewrite_file(
    root: Path,
    relative: str,
    findings: Sequence[Finding],
    entries: Mapping[str, SpecChange],
    mode: FixMode,
    min_confidence: str = "high",
    versions: Mapping[str, Versions] | None = None,
) -> FileRewrite:
    """One file of the project: a module rewritten whole, a notebook cell by cell."""
    file = root / relative if root.is_dir() else root
    try:
        with file.open(encoding="utf-8", newline="") as handle:  # line endings as they are
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = f"cannot read {relative}: {getattr(exc, 'strerror', None) or exc}"
        return FileRewrite(
            relative, "", "", (), tuple(LeftAlone(f, "not-found", reason) for f in findings)
        )
    bom = (
        "\ufeff" if text.startswith("\ufeff") else ""
    )  # neither Python nor JSON: put back as it was
    if not relative.endswith(".ipynb"):
        done = rewrite_source(
            text[len(bom) :],
            findings,
            entries,
            mode,
            min_confidence=min_confidence,
            versions=versions,
        )
        return FileRewrite(relative, text, bom + done.new_source, done.applied, done.left_alone)
    notebook = _rewrite_notebook(
        relative, text[len(bom) :], findings, entries, mode, min_confidence, versions
    )
    return replace(notebook, old_text=text, new_text=bom + notebook.new_text)


def _rewrite_notebook(
    relative: str,
    text: str,
    findings: Sequence[Finding],
    entries: Mapping[str, SpecChange],
    mode: FixMode,
    min_confidence: str,
    versions: Mapping[str, Versions] | None,
) -> FileRewrite:
    sources = cell_sources(text)
    masked = {cell: mask(source) for cell, (_, source) in sources.items()}
    bound = frozenset().union(*(bound_names(m[0]) for m in masked.values() if m is not None))
    table = ImportTable.of(m[0] for m in masked.values() if m is not None)
    moves: list[Move] = []
    by_cell: dict[int | None, list[Finding]] = defaultdict(list)
    for f in findings:
        by_cell[f.cell].append(f)
    applied: list[Applied] = []
    left: list[LeftAlone] = []
    edits: dict[int, str] = {}
    codes: dict[int, str] = {}  # the cells rewritten, masked
    cells = []
    for cell, group in sorted(by_cell.items(), key=lambda item: item[0] or 0):
        found = masked.get(cell) if cell is not None else None
        if found is None:
            left += [
                LeftAlone(f, "not-found", f"no Python code cell {cell} in {relative}")
                for f in group
            ]
            continue
        code = found[0]
        done = rewrite_source(
            code,
            group,
            entries,
            mode,
            min_confidence=min_confidence,
            versions=versions,
            bound=bound,
            table=table,
            deferred=moves,
        )
        applied += done.applied
        left += done.left_alone
        if done.new_source != code:
            assert cell is not None
            codes[cell] = done.new_source
    if moves:  # the import lines of moved names, in whichever cell they are
        now = ImportTable.of(codes.get(c, m[0]) for c, m in masked.items() if m is not None)
        for cell, found in masked.items():
            if found is not None:
                codes[cell] = move_imports(codes.get(cell, found[0]), moves, now)
    for cell, new in sorted(codes.items()):
        found = masked[cell]
        assert found is not None
        if new != found[0]:
            edits[cell] = found[1](new)
            cells.append((cell, sources[cell][1], edits[cell]))
    new_text = replace_sources(text, edits) if edits else text
    return FileRewrite(relative, text, new_text, tuple(applied), tuple(left), tuple(cells))


def fix_project(
    audit: AuditResult,
    root: Path,
    mode: FixMode,
    min_confidence: str = "high",
) -> FixResult:
    """The rewrite of every file of the audit's findings, nothing written yet."""
    entries = {c.id: c for c in audit.changes}
    versions = {t.package: (t.old, t.new) for t in audit.transitions}
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for f in (each for site in audit.findings for each in site.each()):
        by_file[f.path].append(f)
    files = tuple(
        rewrite_file(root, path, group, entries, mode, min_confidence, versions)
        for path, group in sorted(by_file.items())
    )
    notes = []
    for file in files:
        if file.changed and file.path.endswith(".py"):
            try:
                ast.parse(
                    file.new_text.encode("utf-8")
                )  # as Python reads the file: a byte-order mark is no character
            except SyntaxError as exc:  # never expected: said, not hidden
                notes.append(
                    f"{file.path}: the rewritten file does not parse ({exc.msg}, line {exc.lineno})"
                )
    return FixResult(audit, mode, min_confidence, files, tuple(notes))
