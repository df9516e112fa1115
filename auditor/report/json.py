"""The JSON contract: sorted keys, the same bytes for the same input."""

from __future__ import annotations

import json
from typing import Any

from auditor.models import AuditResult
from auditor.report.serialize import audit_result


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render(result: AuditResult) -> str:
    return dumps(audit_result(result))
