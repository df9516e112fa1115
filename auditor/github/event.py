"""The standard GitHub Actions environment and the event that started the run."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.errors import UsageError


@dataclass(frozen=True, slots=True)
class PullRequest:
    number: int
    title: str
    body: str
    base_sha: str
    head_sha: str
    author: str
    head_ref: str = ""


@dataclass(frozen=True, slots=True)
class ActionsEnv:
    """What an Actions step is told through its environment. The token never reaches repr()."""

    repository: str | None = None
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    event_name: str | None = None
    event_path: Path | None = None
    step_summary: Path | None = None
    output: Path | None = None
    workspace: Path | None = None
    sha: str | None = None
    token: str | None = field(default=None, repr=False)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> ActionsEnv:
        def path(name: str) -> Path | None:
            value = environ.get(name)
            return Path(value) if value else None

        return cls(
            repository=environ.get("GITHUB_REPOSITORY") or None,
            api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
            event_name=environ.get("GITHUB_EVENT_NAME") or None,
            event_path=path("GITHUB_EVENT_PATH"),
            step_summary=path("GITHUB_STEP_SUMMARY"),
            output=path("GITHUB_OUTPUT"),
            workspace=path("GITHUB_WORKSPACE"),
            sha=environ.get("GITHUB_SHA") or None,
            token=environ.get("GITHUB_TOKEN") or None,
        )

    def event(self) -> dict[str, Any]:
        if self.event_path is None:
            return {}
        try:
            data = json.loads(self.event_path.read_text("utf-8"))
        except OSError as exc:
            raise UsageError(
                f"cannot read the event: {exc.strerror or exc}", self.event_path
            ) from exc
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"the event is not JSON: {exc.msg}", self.event_path, exc.lineno
            ) from exc
        return data if isinstance(data, dict) else {}


def pull_request(event: Mapping[str, Any]) -> PullRequest | None:
    """The PR of a pull_request / pull_request_target event, or None for other events."""
    pr = event.get("pull_request")
    if not isinstance(pr, dict):
        return None
    return PullRequest(
        number=int(pr.get("number") or event.get("number") or 0),
        title=str(pr.get("title") or ""),
        body=str(pr.get("body") or ""),
        base_sha=str((pr.get("base") or {}).get("sha") or ""),
        head_sha=str((pr.get("head") or {}).get("sha") or ""),
        author=str((pr.get("user") or {}).get("login") or ""),
        head_ref=str((pr.get("head") or {}).get("ref") or ""),
    )


def push_range(event: Mapping[str, Any]) -> tuple[str, str] | None:
    """`before`..`after` of a push event, when both are real commits."""
    before, after = event.get("before"), event.get("after")
    if isinstance(before, str) and isinstance(after, str) and before.strip("0") and after:
        return before, after
    return None


def append_summary(path: Path, markdown: str) -> None:
    with path.open("a", encoding="utf-8") as stream:
        stream.write(markdown if markdown.endswith("\n") else markdown + "\n")


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append to $GITHUB_OUTPUT; multi-line values use a delimiter no value contains."""
    with path.open("a", encoding="utf-8") as stream:
        for name, value in outputs.items():
            if "\n" in value or "\r" in value:
                delimiter = f"auditor_{uuid.uuid4().hex}"
                stream.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
            else:
                stream.write(f"{name}={value}\n")
