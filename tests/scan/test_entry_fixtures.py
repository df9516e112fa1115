"""Every knowledge entry's scanner fixtures, collected automatically (the torchfix habit).

tests/fixtures/scan/<entry id>/positive*.py (or .ipynb): each line ending in `# expect` must be
reported for that entry, and no other line. negative*.py: nothing may be reported.
"""

import re
from pathlib import Path

import pytest

from auditor.knowledge import KnowledgeBase
from auditor.scan import scan_project

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scan"
EXPECT = re.compile(r"#\s*expect\b")
ENTRY_IDS = sorted(e.id for e in KnowledgeBase.load().entries if e.matches)


def _cases(kind: str) -> list:
    return [
        pytest.param(entry_id, path, id=f"{entry_id}/{path.name}")
        for entry_id in ENTRY_IDS
        for path in sorted((FIXTURES / entry_id).glob(f"{kind}*"))
    ]


def _expected_lines(path: Path) -> set[tuple[int | None, int]]:
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
    folder = FIXTURES / entry_id
    assert list(folder.glob("positive*")), f"{entry_id} has no positive scanner fixture"
    assert list(folder.glob("negative*")), f"{entry_id} has no negative scanner fixture"


@pytest.mark.parametrize(("entry_id", "path"), _cases("positive"))
def test_positive_fixture(kb: KnowledgeBase, entry_id: str, path: Path) -> None:
    findings, skipped = scan_project(path, [kb.get(entry_id)])
    assert not skipped
    found = {(f.cell, f.line) for f in findings}
    assert found == _expected_lines(path)


@pytest.mark.parametrize(("entry_id", "path"), _cases("negative"))
def test_negative_fixture(kb: KnowledgeBase, entry_id: str, path: Path) -> None:
    findings, skipped = scan_project(path, [kb.get(entry_id)])
    assert not skipped
    assert [(f.line, f.symbol) for f in findings] == []
