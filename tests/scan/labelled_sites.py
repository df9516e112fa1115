"""Reading the labels of a labelled project (tests/fixtures/labelled*/).

A line a knowledge entry truly affects ends in `# expect: <change id>[, <change id>...]`; a line
written to resemble one but not affected may end in `# lookalike` (the comment may go on). In
notebooks the comments sit in the code cells' sources (nbformat 4 `source`, 3 `input`). A site is
(path relative to the project, cell number or None, line, change id); a look-alike has no change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LABEL = re.compile(r"#\s*expect:\s*([\w\-, ]+)$")
LOOKALIKE = re.compile(r"#\s*lookalike\b")
Site = tuple[str, "int | None", int, str]  # path, cell, line, change
Line = tuple[str, "int | None", int]  # path, cell, line


def _notebook_sources(path: Path) -> list[tuple[int, str]]:
    data = json.loads(path.read_text("utf-8"))
    if "cells" in data:
        cells, key = data["cells"], "source"
    else:
        cells, key = [c for ws in data["worksheets"] for c in ws["cells"]], "input"
    sources = []
    for index, cell in enumerate(cells, start=1):
        if cell["cell_type"] == "code":
            source = cell.get(key, "")
            sources.append((index, "".join(source) if isinstance(source, list) else source))
    return sources


def _sources(project: Path) -> Iterator[tuple[str, int | None, str]]:
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project).as_posix()
        if path.suffix == ".py":
            yield relative, None, path.read_text("utf-8")
        elif path.suffix == ".ipynb":
            for cell, source in _notebook_sources(path):
                yield relative, cell, source


def labels(project: Path) -> set[Site]:
    sites: set[Site] = set()
    for relative, cell, text in _sources(project):
        for number, line in enumerate(text.splitlines(), start=1):
            match = LABEL.search(line)
            if match:
                sites |= {(relative, cell, number, i.strip()) for i in match.group(1).split(",") if i.strip()}
    return sites


def lookalikes(project: Path) -> set[Line]:
    found: set[Line] = set()
    for relative, cell, text in _sources(project):
        for number, line in enumerate(text.splitlines(), start=1):
            if LOOKALIKE.search(line):
                assert not LABEL.search(line), f"{relative}:{cell}:{number}: both labelled and a look-alike"
                found.add((relative, cell, number))
    return found


@dataclass(frozen=True)
class Score:
    """A scan's findings against a project's labels: found and missed sites, false alarms
    (lines with a finding no label names, look-alike or not), recall and the false-alarm rate."""

    found: set[Site]
    expected: set[Site]
    similar: set[Line]

    @property
    def true(self) -> set[Site]:
        return self.found & self.expected

    @property
    def alarms(self) -> set[Line]:
        return {site[:3] for site in self.found - self.expected}

    @property
    def recall(self) -> float:
        return len(self.true) / len(self.expected)

    @property
    def rate(self) -> float:
        return len(self.alarms) / len(self.similar)

    def show(self, head: str) -> None:
        """The figures (seen with `pytest -s`), then each false alarm and miss."""
        print(f"\n{head}: {len(self.expected)} labelled sites, {len(self.found)} findings, {len(self.true)} "
              f"found (recall {self.recall:.3f}); {len(self.similar)} look-alikes, {len(self.alarms)} lines "
              f"with a false alarm ({self.rate:.3%}), {len(self.alarms & self.similar)} of them look-alikes")
        for site in sorted(self.found - self.expected, key=str):
            print("  false alarm:", site)
        for site in sorted(self.expected - self.found, key=str):
            print("  missed:", site)


def score(found: set[Site], project: Path) -> Score:
    return Score(found, labels(project), lookalikes(project))
