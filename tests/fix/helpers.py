"""Entries written as TOML and read by the real loader, and the real scanner's findings."""

from __future__ import annotations

import sys
import textwrap

from auditor.fix.apply import findings_in_source, rewrite_source
from auditor.fix.model import Rewrite
from auditor.fix.spec import FixMode
from auditor.knowledge.entry import SpecChange
from auditor.knowledge.loader import parse_entry

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HEAD = """
id = "{id}"
package = "torch"
introduced = "{introduced}"
kind = "behaviour"
silent = true
severity = "high"
title = "A change the fix tests rewrite call sites of"
references = ["https://github.com/pytorch/pytorch/pull/1"]
docs = {{what = "what changed, in twenty characters or more", why = "why it matters, in twenty characters or more", before = "x", keep_old = "x", adopt_new = "x"}}
"""


def entry(body: str, id: str = "torch-test-change", introduced: str = "1.13.0") -> SpecChange:
    text = HEAD.format(id=id, introduced=introduced) + textwrap.dedent(body)
    parsed, problems = parse_entry(tomllib.loads(text), "test.toml", text)
    assert parsed is not None, problems
    return parsed


def rewrite(source: str, entries: list[SpecChange], mode: FixMode = "keep-old", **options: object) -> Rewrite:
    source = textwrap.dedent(source)
    findings = findings_in_source(source, entries)
    assert findings, "the scanner found nothing to rewrite"
    return rewrite_source(source, findings, entries, mode, **options)  # type: ignore[arg-type]
