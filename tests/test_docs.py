"""The docs speak to readers of this repository: no issue numbers, no paths outside it, and every
relative link in the Markdown files points at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = re.compile(
    r"/work/|\.\./shared|\bshared/CONTRACT|FIX-SPEC|\bissues? #?\d+", re.IGNORECASE
)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files() -> list[Path]:
    top = [
        ROOT / name
        for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")
        if (ROOT / name).exists()
    ]
    return top + sorted((ROOT / "docs").rglob("*.md"))


def checked_files() -> list[Path]:
    return markdown_files() + sorted((ROOT / "auditor").rglob("*.py"))


def outside_references(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if OUTSIDE.search(line)]


def broken_links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    out = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (path.parent / target.split("#", 1)[0]).exists():
            out.append(target)
    return out


def test_the_readme_and_contributing_exist() -> None:
    assert (ROOT / "README.md").exists() and (ROOT / "CONTRIBUTING.md").exists()


@pytest.mark.parametrize("path", checked_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_issue_numbers_or_outside_paths(path: Path) -> None:
    assert not outside_references(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files(path: Path) -> None:
    assert not broken_links(path)


def test_the_checks_can_fail(tmp_path: Path) -> None:
    assert outside_references("see /work/shared/CONTRACT.md\nas issue 15 asks\nfine line")
    assert not outside_references("`shared/vision` is a folder of the example; cell #1")
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("x", encoding="utf-8")
    page.write_text(
        "[a](there.md#top) [b](missing.md) [c](https://x.org) [d](#here)\n"
        "```\n[e](in-code.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["missing.md"]
