"""What the tool did beyond reading its inputs (a range resolved, a build probed on its release)
is said in every report format but the code annotations."""

from __future__ import annotations

import json
from dataclasses import replace

from auditor.models import AuditResult
from auditor.report import RENDERERS

NOTE = "requirements-new.in: torch: resolved >=1.13,<1.14 to 1.13.1 with pip-compile for Python 3.11.7 on linux"


def test_every_report_says_the_notes(result: AuditResult) -> None:
    noted = replace(result, notes=(NOTE,))
    assert f"note: {NOTE}" in RENDERERS["text"](noted, width=200)
    assert json.loads(RENDERERS["json"](noted))["notes"] == [NOTE]
    notifications = json.loads(RENDERERS["sarif"](noted))["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert {"descriptor": {"id": "note"}, "level": "note", "message": {"text": NOTE}} in notifications
    markdown = RENDERERS["markdown"](noted, notes=["Bump of torch from 1.12.1 to 1.13.1"])
    assert markdown.index("torch: resolved") < markdown.index("Bump of torch")  # the result's own first
    assert "resolved" not in RENDERERS["github"](noted)  # annotations are about lines of code


def test_without_notes_the_json_has_an_empty_list(result: AuditResult) -> None:
    assert json.loads(RENDERERS["json"](result))["notes"] == []
    assert "note:" not in RENDERERS["text"](result)
