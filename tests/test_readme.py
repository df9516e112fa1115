"""The README stays scannable and in step with the CLI: its options table names every option of
every command it lists, as `--help` prints them, and no paragraph runs longer than eight lines;
docs/cli.md gives every option of every command too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app

README = Path(__file__).resolve().parent.parent / "README.md"
WIDE = {"COLUMNS": "300", "NO_COLOR": "1"}
OPTION = re.compile(r"`(--[a-z][a-z0-9-]*)`")
PROBE_ROW = "probe options"


def options_table() -> dict[str, set[str]]:
    """Rows of the README's options table: command -> the long options its row names."""
    rows: dict[str, set[str]] = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2:
            continue
        head, options = cells
        named = set(OPTION.findall(options))
        if head.startswith("`auditor "):
            rows[head.strip("`").removeprefix("auditor ")] = named | (
                {PROBE_ROW} if PROBE_ROW in options else set()
            )
        elif head == PROBE_ROW:
            rows[PROBE_ROW] = named
    probe = rows.pop(PROBE_ROW, set())
    return {
        command: (named - {PROBE_ROW}) | (probe if PROBE_ROW in named else set())
        for command, named in rows.items()
    }


def help_options(command: str) -> set[str]:
    result = CliRunner().invoke(app, [*command.split(), "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    found: set[str] = set()
    for line in result.stdout.splitlines():
        first = line.strip("│ *").split()  # `*` marks a required option
        while first and first[0].startswith("-"):
            if first[0].startswith("--"):
                found.add(first[0])
            first = first[1:]
    return found - {"--help"}


def test_the_table_lists_the_commands_of_the_usage_block() -> None:
    usage = set(
        re.findall(
            r"^auditor ((?:lock |kb )?[a-z]+)", README.read_text(encoding="utf-8"), re.MULTILINE
        )
    )
    assert usage and usage <= set(options_table())


@pytest.mark.parametrize("command", sorted(options_table()))
def test_options_table_matches_help(command: str) -> None:
    named, printed = options_table()[command], help_options(command)
    assert not named - printed, (
        f"the README names options `auditor {command} --help` does not print"
    )
    assert not printed - named, (
        f"`auditor {command} --help` prints options the README does not name"
    )


def paragraphs(text: str) -> list[list[str]]:
    """Runs of prose lines: outside code fences and tables; each list item starts a new one."""
    out: list[list[str]] = []
    current: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if fenced or line.startswith(("```", "|", "#")) or not line.strip():
            current = []
            continue
        if line.startswith("- ") or not current:
            current = []
            out.append(current)
        current.append(line)
    return out


def test_no_paragraph_is_longer_than_eight_lines() -> None:
    long = [p[0] for p in paragraphs(README.read_text(encoding="utf-8")) if len(p) > 8]
    assert not long, f"README paragraphs over 8 lines start with: {long}"


def test_a_long_paragraph_is_caught() -> None:
    assert [
        len(p)
        for p in paragraphs("a\n" * 9 + "\n```\n" + "code\n" * 12 + "```\n- one\n- two\n  more\n")
    ] == [9, 1, 2]


CLI_DOC = README.parent / "docs" / "cli.md"


def cli_doc_options() -> dict[str, set[str]]:
    """docs/cli.md: command -> the long options in the first column of its section's table."""
    sections: dict[str, set[str]] = {}
    current: set[str] = set()
    for line in CLI_DOC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#{2,3} `auditor ([a-z ]+)`$|## (Probe options)$", line)
        if heading:
            current = sections.setdefault(heading.group(1) or PROBE_ROW, set())
        elif line.startswith("|"):
            first = line.strip("|").split("|")[0]
            current.update(OPTION.findall(first))
            if "probe options" in first:
                current.add(PROBE_ROW)
        elif line.startswith("## "):
            current = set()
    probe = sections.pop(PROBE_ROW, set())
    return {
        command: (named - {PROBE_ROW}) | (probe if PROBE_ROW in named else set())
        for command, named in sections.items()
    }


@pytest.mark.parametrize("command", sorted(options_table()))
def test_cli_doc_lists_every_option(command: str) -> None:
    assert cli_doc_options().get(command) == help_options(command)
