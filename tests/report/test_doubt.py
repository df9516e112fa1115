"""An entry's `doubt` is a note for maintainers of the knowledge base: readers of a report
(PR comment, text, JSON, SARIF, annotations) never see it; `kb show` shows it, labelled."""

import dataclasses
import io

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.loader import load_entries
from auditor.report import RENDERERS, WRITERS, kb
from tests.report.conftest import sample

DOUBT = "the research recalls #137602 but nobody checked it"


def _doubtful():
    result = sample()
    changes = tuple(dataclasses.replace(c, doubt=DOUBT) for c in result.changes)
    return dataclasses.replace(result, changes=changes)


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_renderers_leave_out_doubt(fmt):
    text = RENDERERS[fmt](_doubtful())
    assert "recalls #137602" not in text
    # the rest of the entry is still there: the doubt is left out, not the entry
    assert "torch-floor-divide-rounds-toward-floor" in text


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_writers_leave_out_doubt(fmt):
    out = io.StringIO()
    WRITERS[fmt](_doubtful(), out)
    assert "recalls #137602" not in out.getvalue()
    assert "torch-floor-divide-rounds-toward-floor" in out.getvalue()


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "sarif", "github"])
def test_compare_prints_no_doubt_of_the_real_knowledge_base(examples, fmt):
    """The example bump crosses real entries that carry doubt; none of it reaches the report."""
    result = CliRunner().invoke(app, [
        "compare", str(examples / "requirements-old.txt"), str(examples / "requirements-new.txt"),
        "--project", str(examples / "project"), "--format", fmt, "--fail-on", "none",
    ])
    assert result.exit_code == 0, result.output
    crossed = [e for e in load_entries() if e.id in result.output and e.doubt]
    assert crossed, "the example bump no longer reports an entry with doubt: pick another"
    for entry in crossed:
        assert entry.doubt not in result.output, entry.id


def test_kb_show_labels_doubt_as_maintainers_note():
    entry = dataclasses.replace(sample().changes[0], doubt=DOUBT)
    page = kb.page(entry)
    assert "## Maintainer's note: not verified" in page
    assert page.split("## Maintainer's note: not verified", 1)[1].find(DOUBT) > 0
    assert "## Not verified" not in page


def test_kb_show_prints_a_real_entrys_doubt_under_the_maintainers_note():
    entry = next(e for e in load_entries() if e.doubt)
    result = CliRunner().invoke(app, ["kb", "show", entry.id])
    assert result.exit_code == 0, result.output
    note = result.output.split("## Maintainer's note: not verified", 1)
    assert len(note) == 2 and entry.doubt in note[1]
