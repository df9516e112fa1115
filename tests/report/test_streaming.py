"""Reports are written to their stream as they are made, and say the same as the whole text."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from auditor.models import AuditResult
from auditor.report import RENDERERS, WRITERS

OPTIONS = {"text": {"color": False}, "sarif": {"prefix": "src/"}, "github": {"prefix": "src/"}, "markdown": {}, "json": {}}


class CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_writer_writes_what_the_renderer_returns(fmt: str, cases: dict[str, AuditResult]) -> None:
    for result in cases.values():
        out = CountingStream()
        WRITERS[fmt](result, out, **OPTIONS[fmt])
        assert out.getvalue() == RENDERERS[fmt](result, **OPTIONS[fmt])


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_long_reports_are_written_in_pieces(fmt: str, many_findings: Callable[[int], AuditResult]) -> None:
    result = many_findings(300)
    out = CountingStream()
    WRITERS[fmt](result, out, **OPTIONS[fmt])
    assert out.writes > len(result.findings)  # piece by piece, not one string made first
    assert out.getvalue() == RENDERERS[fmt](result, **OPTIONS[fmt])
