"""TOML from files a pull request may have written (locks, pyproject.toml, --config), bounded
before it is parsed.

The standard parser's work on a dotted key grows with the square of its parts, and with the
parts of the table header above it: a 200 KB `pylock.toml` holding one key of 100,000 parts
took 21 GB, and 100,000 parts inside an inline table take minutes. So before parsing, every
dotted key (outside strings and comments) is measured: no key may have more than
`MAX_KEY_PARTS` parts, and the parts of all of them together, squared, may not pass
`MAX_KEY_WORK`. Real files stay far below both: their dotted keys have a handful of parts.
Deep nesting of arrays and inline tables is caught as the parser's RecursionError.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from auditor.errors import AuditorError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

MAX_KEY_PARTS = 64
MAX_KEY_WORK = 1_000_000  # sum of parts squared: about a tenth of a second of parsing

_BASIC = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'  # a one-line "string", escapes included
_PART = rf"""(?:[A-Za-z0-9_-]+|{_BASIC}|'[^'\n]*')"""
_TOKENS = re.compile(
    r"#[^\n]*"  # a comment
    r'|"""(?:[^\\]|\\[\s\S])*?"""'  # multi-line strings
    r"|'''[\s\S]*?'''"
    rf"|^[ \t]*\[\[?[ \t]*(?P<header>{_PART}(?:[ \t]*\.[ \t]*{_PART})*)"  # a table header
    rf"|(?<![A-Za-z0-9_-])(?P<key>{_PART}(?:[ \t]*\.[ \t]*{_PART})+)"  # a dotted key, or a float
    rf"""|{_BASIC}|'[^'\n]*'""",  # strings that are no part of a dotted key
    re.MULTILINE,
)
_KEYS = re.compile(  # the same, in text whose strings and comments are already cut out
    rf"^[ \t]*\[\[?[ \t]*(?P<header>{_PART}(?:[ \t]*\.[ \t]*{_PART})*)"
    rf"|(?<![A-Za-z0-9_-])(?P<key>{_PART}(?:[ \t]*\.[ \t]*{_PART})+)",
    re.MULTILINE,
)
_ONE_LINE = re.compile(rf"""#[^\n]*|{_BASIC}|'[^'\n]*'""")
_PARTS = re.compile(_PART)
_AT = re.compile(r"\s*\(at line (\d+), column \d+\)$")


def check(text: str, path: Path | str, error: type[AuditorError] = AuditorError) -> None:
    """Raise `error` naming the line of the first dotted key that passes the bounds."""
    work = 0
    header = 1  # parts of the table header the following keys live in
    if '"""' in text or "'''" in text:
        tokens = _TOKENS.finditer(text)
    else:  # most locks: strings and comments (none spans lines) cut out at C speed first; a string
        text = _ONE_LINE.sub('""', text)  # stays `""`, a key part, so quoted parts still count
        tokens = _KEYS.finditer(text)
    for token in tokens:
        key = token.group("header") or token.group("key")
        if key is None:
            continue
        parts = len(_PARTS.findall(key))
        if parts > MAX_KEY_PARTS:
            line = text.count("\n", 0, token.start()) + 1
            raise error(
                f"TOML key with more than {MAX_KEY_PARTS} dotted parts: not a real file", path, line
            )
        if token.group("header") is not None:
            header = parts
        work += parts * (parts + header)
        if work > MAX_KEY_WORK:
            line = text.count("\n", 0, token.start()) + 1
            raise error(
                "too many dotted TOML key parts to parse safely: not a real file", path, line
            )


def loads(text: str, path: Path | str, error: type[AuditorError] = AuditorError) -> dict[str, Any]:
    """The document, or `error("invalid TOML: ...", path, line)`."""
    check(text, path, error)
    try:
        document: dict[str, Any] = tomllib.loads(text)
        return document
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _AT.search(message)
        line = int(found.group(1)) if found else None
        raise error(f"invalid TOML: {_AT.sub('', message)}", path, line) from exc
    except RecursionError as exc:
        raise error("invalid TOML: nested too deeply", path) from exc
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise error(f"invalid TOML: {str(exc).split(';')[0]}", path) from exc
