import re
from pathlib import Path

import pytest

from auditor import pipeline
from auditor.models import AuditResult
from auditor.report import RENDERERS, markdown

LINKS = markdown.Links("octo/ml", "0123456789abcdef0123456789abcdef01234567", prefix="src/")


@pytest.mark.parametrize("case", ["findings", "no-transition", "no-change", "untouched"])
def test_golden(cases, golden, case):
    golden(f"markdown-{case}.golden", markdown.render(cases[case]))


def test_golden_with_links_and_notes(result, golden):
    text = markdown.render(result, LINKS, notes=("Dependabot bumps torch 1.12.1 -> 1.13.0",))
    golden("markdown-links.golden", text)


def test_registered():
    assert RENDERERS["markdown"] is markdown.render


def test_verdict_comes_first_in_each_case(cases):
    first = {name: markdown.render(r).split("\n\n")[1] for name, r in cases.items()}
    assert first["no-transition"].startswith("✅ **No spec change crossed.**")
    assert first["no-change"].startswith("✅ **No spec change crossed.**")
    assert "torch 2.1.0 → 2.1.2" in first["no-change"]
    assert first["untouched"].startswith("✅ **3 spec changes crossed, none touches this code.**")
    assert first["findings"].startswith("🔴 **6 call sites in 5 files affected** by 4 spec changes (of 7 crossed)")


def test_summary_line(result):
    assert markdown.summary_lines(result) == ["**torch 1.12.1 -> 1.13.0**: 7 changes, 6 call sites (and 2 at low confidence)"]


def test_links_point_at_head_commit(result):
    text = markdown.render(result, LINKS)
    sha = LINKS.sha
    assert f"](https://github.com/octo/ml/blob/{sha}/src/data/windows.py#L14)" in text
    assert f"](https://github.com/octo/ml/blob/{sha}/src/models/conv%201d.py#L26)" in text
    # a notebook cell's line is not a line of the file: link the file, say the cell
    assert f"[explore.ipynb cell 3, line 2](https://github.com/octo/ml/blob/{sha}/src/explore.ipynb)" in text
    assert "https://github.com" not in markdown.render(result).split("<details>")[0].split("|")[-1]


def _tables(text: str) -> list[list[str]]:
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables + ([current] if current else [])


def _cells(row: str) -> int:
    return len(re.split(r"(?<!\\)\|", row)) - 2


def test_tables_are_well_formed_despite_pipes_and_newlines(result):
    text = markdown.render(result)
    tables = _tables(text)
    assert len(tables) >= 4
    for table in tables:
        widths = {_cells(row) for row in table}
        assert len(widths) == 1, table
        assert all(row.endswith("|") for row in table)
    assert "&#124;" in text  # the `|` inside the snippet


def test_details_hold_what_changed_and_fix(result):
    text = markdown.render(result)
    assert text.count("<details><summary>What changed, and how to fix it</summary>") == 4  # the four changes with confident call sites
    assert text.count("<details>") == text.count("</details>")
    assert "**Keep the old behaviour**" in text and "rounding_mode='trunc'" in text
    assert "✅ confirmed by a probe" in text and "needs CUDA" in text
    assert "### Compatibility" in text and "no wheel for Python 3.6" in text
    assert "0-dim complex operands promote" in text  # crossed but unused


@pytest.mark.parametrize("n", [300, 3000])
def test_fits_github_limit_by_summarising(many_findings, n):
    full = markdown.render(many_findings(n), LINKS, max_length=10**9)
    assert len(full) > markdown.GITHUB_COMMENT_LIMIT
    text = markdown.render(many_findings(n), LINKS)
    assert len(text) <= markdown.GITHUB_COMMENT_LIMIT
    assert "Shortened to fit GitHub's 65,536-character limit" in text
    assert text.startswith(markdown.HEADING)
    assert text.rstrip().endswith("</sub>")  # nothing cut off at the end
    for table in _tables(text):
        assert len({_cells(row) for row in table}) == 1
    assert f"{n} call sites in" in text  # the verdict still counts every one
    assert "…and " in text  # and says how many are not listed


def test_small_limit_falls_back_to_counts(many_findings):
    text = markdown.render(many_findings(90), max_length=3000)
    assert "|" not in text.split("### ")[1]  # no table rows at all
    assert "30 call sites in" in text


def test_example_project_markdown(kb, examples):
    result: AuditResult = pipeline.compare(
        examples / "requirements-old.txt", examples / "requirements-new.txt", examples / "project", kb
    )
    text = markdown.render(result)
    n = len({(f.path, f.cell, f.line, f.column) for f in result.findings})
    assert n >= 8  # the example project's known call sites; the knowledge base may add more
    paragraphs = text.split("\n\n")
    assert paragraphs[1].startswith(f"🔴 **{n} call sites in ")  # the verdict leads
    not_checked = text.split("### Not checked, and how the inputs were read")[1].split("###")[0]
    assert "- torch 1.12.1+cu116 -> 1.13.0+cu117 also crosses " in not_checked  # then what was not checked, once
    assert text.count("torch 1.12.1+cu116 -> 1.13.0+cu117 also crosses") == 1
    summary = rf"\*\*torch 1\.12\.1\+cu116 -> 1\.13\.0\+cu117\*\*: {len(result.changes)} changes, {n} call sites"
    assert re.search(summary, text)
    assert Path("data/windows.py").as_posix() + ":14" in text


def test_multiline_probe_output_keeps_the_table(result):
    from dataclasses import replace

    from auditor.models import ProbeOutcome, ProbeRun

    broken = ProbeOutcome(result.changes[1].id, "error", ProbeRun("1.12.1", "Traceback\n  line 1\nValueError: x"),
                          ProbeRun("1.13.0", "ok"), reason="crashed")
    text = markdown.render(replace(result, probes=(broken,)))
    probes = next(t for t in _tables(text) if t[0].startswith("| Change | Status"))
    assert len(probes) == 3 and "Traceback ⏎ line 1 ⏎ ValueError: x" in probes[2]


def test_hundreds_of_changes_still_fit(result):
    from dataclasses import replace

    template = result.changes[1]
    changes = tuple(replace(template, id=f"torch-change-{i:04d}", title=f"Change number {i} " + "t" * 150)
                    for i in range(800))
    findings = tuple(replace(result.findings[0], change=c.id, line=i + 1) for i, c in enumerate(changes))
    big = replace(result, changes=changes, findings=findings, probes=())
    text = markdown.render(big)
    assert len(text) <= markdown.GITHUB_COMMENT_LIMIT
    assert "800 call sites in 1 file affected" in text
    assert "more changes" in text and text.rstrip().endswith("</sub>")
    assert "|" not in text.split("Shortened")[0].split("\n- ")[-1]  # whole lines, no half-table
