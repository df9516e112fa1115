"""Every knowledge entry's scanner fixtures, collected automatically (the torchfix habit).

knowledge/<package>/<version>/<stem>/positive*.py (or .ipynb), beside the entry: each line ending
in `# expect` must be reported for that entry, and no other line. negative*.py: nothing may be
reported. The fix snapshots beside them (positive.keep_old.py, ...) are not fixtures.
"""

import re
from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.folders import fixtures
from auditor.knowledge.loader import load_entries
from auditor.scan import scan_project

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"
EXPECT = re.compile(r"#\s*expect\b")


def fixture_folders(root: Path) -> dict[str, Path]:
    """Each entry with matchers, by id, and the folder its fixtures are read from."""
    return {e.id: root / e.source.rpartition("/")[0] for e in load_entries(root) if e.matches}


FOLDERS = fixture_folders(KNOWLEDGE)
ENTRY_IDS = sorted(FOLDERS)


def _cases(kind: str) -> list:
    return [
        pytest.param(entry_id, path, id=f"{entry_id}/{path.name}")
        for entry_id in ENTRY_IDS
        for path in fixtures(FOLDERS[entry_id], kind)
    ]


def expected_lines(path: Path) -> set[tuple[int | None, int]]:
    if path.suffix == ".ipynb":
        import nbformat

        notebook = nbformat.read(path, as_version=4)
        return {
            (index, number)
            for index, cell in enumerate(notebook.cells, start=1)
            for number, line in enumerate(cell.source.splitlines(), start=1)
            if EXPECT.search(line)
        }
    lines = path.read_text("utf-8").splitlines()
    return {(None, number) for number, line in enumerate(lines, start=1) if EXPECT.search(line)}


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_every_entry_has_positive_and_negative_fixtures(entry_id: str) -> None:
    folder = FOLDERS[entry_id]
    assert fixtures(folder, "positive"), f"{entry_id} has no positive scanner fixture in {folder}"
    assert fixtures(folder, "negative"), f"{entry_id} has no negative scanner fixture in {folder}"


@pytest.mark.parametrize(("entry_id", "path"), _cases("positive"))
def test_positive_fixture(kb: KnowledgeBase, entry_id: str, path: Path) -> None:
    findings, skipped = scan_project(path, [kb.get(entry_id)])
    assert not skipped
    found = {(f.cell, f.line) for f in findings}
    assert found == expected_lines(path)


@pytest.mark.parametrize(("entry_id", "path"), _cases("negative"))
def test_negative_fixture(kb: KnowledgeBase, entry_id: str, path: Path) -> None:
    findings, skipped = scan_project(path, [kb.get(entry_id)])
    assert not skipped
    assert [(f.line, f.symbol) for f in findings] == []
