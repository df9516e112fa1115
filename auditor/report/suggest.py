"""Suggested fixes for reviewers, as a report shows them: per change (the Markdown comment's
"Suggested fix" blocks, made by `pipeline.suggestions`) and per call site (SARIF `fixes`), each
with the command that applies it.

Nothing here runs the fix engine: the rewrites come made, in memory, as `auditor fix --diff`
makes them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auditor.fix.model import FileRewrite, FixResult


@dataclass(frozen=True, slots=True)
class Replacement:
    """Whole lines of a file replaced: `start`..`end` (1-based, inclusive; `end` = `start` - 1
    for an insertion before `start`) by `text` (lines joined, no final line break)."""

    start: int
    end: int
    text: str
    end_column: int = 1  # just past the last replaced character of line `end` (1 for an insertion)

    def sarif(self) -> dict[str, object]:
        """As a SARIF replacement: the old lines' characters (without the last line break) and
        the new ones; an insertion puts its lines and a line break before line `start`."""
        if self.end < self.start:
            region = {
                "startLine": self.start,
                "startColumn": 1,
                "endLine": self.start,
                "endColumn": 1,
            }
            return {"deletedRegion": region, "insertedContent": {"text": self.text + "\n"}}
        region = {
            "startLine": self.start,
            "startColumn": 1,
            "endLine": self.end,
            "endColumn": self.end_column,
        }
        return {"deletedRegion": region, "insertedContent": {"text": self.text}}


def replacements(file: FileRewrite) -> list[Replacement]:
    """The changed line ranges of a module's rewrite, in order (none for a notebook: its cells'
    lines are not lines of the .ipynb file)."""
    if not file.changed or file.cells:
        return []
    old, new = file.old_text.splitlines(), file.new_text.splitlines()
    found = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if (
            tag == "replace" and i2 - i1 == j2 - j1
        ):  # line for line: one replacement a line, one a site
            found += [
                Replacement(i + 1, i + 1, new[j], len(old[i]) + 1)
                for i, j in zip(range(i1, i2), range(j1, j2))
            ]
        elif tag != "equal":
            found.append(
                Replacement(
                    i1 + 1, i2, "\n".join(new[j1:j2]), len(old[i2 - 1]) + 1 if i2 > i1 else 1
                )
            )
    return found


def site_fixes(fixed: FixResult) -> dict[tuple[str, int, int, str], list[Replacement]]:
    """Per rewritten call site (path, line, column, change): the replacements that make its
    rewrite. A change covering the site's line is its own; an insertion above every site (the
    imports the rewrite added) goes with each; another insertion (a new line inside a call laid
    out one argument a line) with the nearest site above it."""
    found: dict[tuple[str, int, int, str], list[Replacement]] = {}
    for file in fixed.changed:
        ranges = replacements(file)
        sites = sorted(
            {
                (a.finding.line, a.finding.column, a.finding.change): a.finding
                for a in file.applied
            }.values(),
            key=lambda f: (f.line, f.column),
        )
        if not ranges or not sites:
            continue
        first = sites[0].line
        imports = [r for r in ranges if r.end < r.start and r.start <= first]
        for f in sites:
            own = [r for r in ranges if r.start <= f.line <= r.end]
            own += [
                r
                for r in ranges
                if r.end < r.start
                and r.start > first
                and max((s.line for s in sites if s.line < r.start), default=0) == f.line
            ]
            if own:
                found[(f.path, f.line, f.column, f.change)] = [
                    *imports,
                    *sorted(own, key=lambda r: r.start),
                ]
    return found
