"""The JSON contract: sorted keys, the same bytes for the same input."""

from __future__ import annotations

import json
from typing import Any, TextIO

from auditor.models import AuditResult
from auditor.report.serialize import audit_result


def _encoder() -> json.JSONEncoder:
    return json.JSONEncoder(indent=2, sort_keys=True, ensure_ascii=False)


def dumps(document: dict[str, Any]) -> str:
    return _encoder().encode(document) + "\n"


def dump(document: dict[str, Any], out: TextIO) -> None:
    """`dumps` written piece by piece, without the whole text in memory first."""
    out.writelines(_encoder().iterencode(document))
    out.write("\n")


def render(result: AuditResult) -> str:
    return dumps(audit_result(result))


def write(result: AuditResult, out: TextIO) -> None:
    dump(audit_result(result), out)
