"""The release notes as a witness of the torch knowledge (`docs/release-notes.toml`): every item
of a read release is covered by a curated entry of that release, recorded as not hittable with
why, or left open; `docs/release-notes.md` is rendered from it.

`python tests/knowledge/test_release_notes.py` writes the Markdown again after the data changes."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tomllib

from auditor.knowledge.loader import default_directory, load_entries

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "release-notes.toml"
DOC = ROOT / "docs" / "release-notes.md"
SECTIONS = {"bc": "Backwards Incompatible Changes", "deprecations": "Deprecations"}
OUTCOMES = ("covered", "not_hittable", "open")
REASONS = {
    "c++": "C++ API only",
    "build": "building from source",
    "packaging": "which wheels are published",
    "platform": "hardware or operating system",
    "private": "private or internal API",
    "never-released": "in no release",
    "not-observable": "nothing a user's code can observe",
    "command-line": "a command-line tool, not Python code",
    "docs": "documentation only",
}


def load(path: Path = DATA) -> dict[str, Any]:
    with path.open("rb") as file:
        return tomllib.load(file)


def outcome(item: dict[str, Any]) -> str:
    (found,) = [key for key in OUTCOMES if key in item]
    return found


def figures(items: list[dict[str, Any]]) -> tuple[int, int, int]:
    """covered, not hittable, open."""
    count = Counter(outcome(item) for item in items)
    return count["covered"], count["not_hittable"], count["open"]


def ratio(covered: int, hittable: int) -> str:
    return f"{covered} / {hittable} ({100 * covered // hittable} %)" if hittable else "0 / 0"


def status(item: dict[str, Any]) -> str:
    kind = outcome(item)
    if kind == "covered":
        landed = f" (the wheels show it in {item['landed']})" if "landed" in item else ""
        return f"covered: `{item['covered']}`{landed}"
    if kind == "open":
        return f"**open**: {item['open']}"
    return f"not hittable ({REASONS[item['not_hittable']]}): {item['why']}"


def render(data: dict[str, Any]) -> str:
    """The Markdown page: a summary per release, then each read release's items."""
    items: dict[str, list[dict[str, Any]]] = {r["version"]: [] for r in data["release"]}
    for item in data["item"]:
        items[item["release"]].append(item)
    lines = [
        "# Release notes as a witness",
        "",
        "<!-- Generated from release-notes.toml by `python tests/knowledge/test_release_notes.py`. -->",
        "",
        "Each item of the *Backwards Incompatible Changes* and *Deprecations* sections of a torch",
        "2.x release's notes is covered by a curated entry of that release, recorded as not",
        "hittable (no line of a user's Python code meets it, with why), or **open**: a user's code",
        "can meet it and no curated entry covers it yet. An item covered only by the generated",
        "changes counts as open, since a default audit does not report them. Coverage is covered",
        "items over hittable ones (covered and open). A release whose notes were not read is",
        "listed with why and counts nothing.",
        "",
        "| release | items | covered | not hittable | open | coverage |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    totals = [0, 0, 0]
    for release in data["release"]:
        version = release["version"]
        if "unread" in release:
            lines.append(f"| {version} | not read | | | | |")
            continue
        covered, waived, still_open = figures(items[version])
        totals = [totals[0] + covered, totals[1] + waived, totals[2] + still_open]
        lines.append(
            f"| [{version}](#torch-{version.replace('.', '')}) | {len(items[version])} | {covered}"
            f" | {waived} | {still_open} | {ratio(covered, covered + still_open)} |"
        )
    lines.append(
        f"| all read | {sum(totals)} | {totals[0]} | {totals[1]} | {totals[2]}"
        f" | {ratio(totals[0], totals[0] + totals[2])} |"
    )
    for release in data["release"]:
        version = release["version"]
        lines += ["", f"## torch {version}", ""]
        if "unread" in release:
            lines.append(f"Not read: {release['unread']}")
            continue
        lines.append(f"Notes: <{release['notes']}>." + (f" {release['read']}" if "read" in release else ""))
        for section, heading in SECTIONS.items():
            found = [item for item in items[version] if item["section"] == section]
            lines += ["", f"### {heading}", ""]
            if not found:
                lines.append("No item.")
                continue
            lines += ["| item | pull requests | what the knowledge does |", "| --- | --- | --- |"]
            lines += [f"| {item['title']} | {item.get('ref', '')} | {status(item)} |" for item in found]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return load()


def test_each_item_has_one_outcome_and_a_read_release(data: dict[str, Any]) -> None:
    releases = {r["version"]: r for r in data["release"]}
    assert len(releases) == len(data["release"])
    problems = []
    for index, item in enumerate(data["item"]):
        where = f"item[{index}] {item.get('title')!r}"
        if sum(key in item for key in OUTCOMES) != 1:
            problems.append(f"{where}: needs exactly one of {', '.join(OUTCOMES)}")
        if item.get("release") not in releases or "unread" in releases.get(item.get("release"), {}):
            problems.append(f"{where}: release {item.get('release')!r} is not a read release")
        if item.get("section") not in SECTIONS:
            problems.append(f"{where}: section {item.get('section')!r} is not one of {sorted(SECTIONS)}")
        if "landed" in item and "covered" not in item:
            problems.append(f"{where}: landed names the release of a covering entry; it needs covered")
        if "not_hittable" in item and (item["not_hittable"] not in REASONS or not item.get("why")):
            problems.append(f"{where}: not_hittable needs a reason of {sorted(REASONS)} and a why")
    read = [v for v, r in releases.items() if "unread" not in r]
    problems += [f"release {v}: read, yet no item" for v in read if not any(i["release"] == v for i in data["item"])]
    assert not problems, "\n".join(problems)


def test_each_covered_id_is_a_curated_entry_of_its_release(data: dict[str, Any]) -> None:
    entries = {e.id: e for e in load_entries(default_directory())}
    problems = []
    for item in data["item"]:
        if "covered" not in item:
            continue
        entry = entries.get(item["covered"])
        release = item.get("landed", item["release"])
        if entry is None:
            problems.append(f"{item['title']!r}: no entry {item['covered']!r}")
        elif entry.package != "torch" or f"{entry.introduced.major}.{entry.introduced.minor}" != release:
            problems.append(f"{item['title']!r}: {entry.id} is {entry.package} {entry.introduced}, not torch {release}")
    assert not problems, "\n".join(problems)


def test_the_page_is_rendered_from_the_data(data: dict[str, Any]) -> None:
    assert DOC.read_text(encoding="utf-8") == render(data), "run: python tests/knowledge/test_release_notes.py"


def test_render_counts_open_items_against_coverage() -> None:
    data = {
        "release": [{"version": "9.1", "notes": "https://example.org"}, {"version": "9.0", "unread": "gone"}],
        "item": [
            {"release": "9.1", "section": "bc", "title": "a", "covered": "torch-a"},
            {"release": "9.1", "section": "bc", "title": "b", "open": "b()"},
            {"release": "9.1", "section": "deprecations", "title": "c", "not_hittable": "build", "why": "cmake"},
            {"release": "9.1", "section": "bc", "title": "d", "covered": "torch-d", "landed": "9.2"},
        ],
    }
    page = render(data)
    assert "| [9.1](#torch-91) | 4 | 2 | 1 | 1 | 2 / 3 (66 %) |" in page
    assert "| d |  | covered: `torch-d` (the wheels show it in 9.2) |" in page
    assert "| 9.0 | not read | | | | |" in page
    assert "Not read: gone" in page


if __name__ == "__main__":
    DOC.write_text(render(load()), encoding="utf-8")
    sys.exit(0)
