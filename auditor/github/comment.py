"""One sticky PR comment, found again by a hidden marker and updated in place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from auditor.github.api import GitHubClient

MARKER = "<!-- lockfile-auditor:report -->"


@dataclass(frozen=True, slots=True)
class CommentResult:
    action: Literal["created", "updated", "unchanged", "skipped"]
    url: str | None = None
    id: int | None = None


def body_with_marker(markdown: str) -> str:
    return f"{MARKER}\n{markdown}"


def find_comment(client: GitHubClient, repository: str, number: int) -> dict[str, Any] | None:
    """The oldest comment holding the marker: the one every run updates."""
    for comment in client.paginate(f"/repos/{repository}/issues/{number}/comments"):
        if isinstance(comment, dict) and MARKER in str(comment.get("body") or ""):
            return comment
    return None


def upsert_comment(
    client: GitHubClient, repository: str, number: int, markdown: str, create: bool = True
) -> CommentResult:
    """Update our comment if there is one; otherwise create it when `create` is true.

    With `create` false (comment only on findings, none found) an existing comment is still
    updated, so a warning from an earlier push does not linger.
    """
    body = body_with_marker(markdown)
    existing = find_comment(client, repository, number)
    if existing is not None:
        url, cid = existing.get("html_url"), existing.get("id")
        if existing.get("body") == body:
            return CommentResult("unchanged", url, cid)
        updated = client.json(
            "PATCH", f"/repos/{repository}/issues/comments/{cid}", json={"body": body}
        )
        return CommentResult("updated", updated.get("html_url", url), cid)
    if not create:
        return CommentResult("skipped")
    created = client.json(
        "POST", f"/repos/{repository}/issues/{number}/comments", json={"body": body}
    )
    return CommentResult("created", created.get("html_url"), created.get("id"))


def add_labels(client: GitHubClient, repository: str, number: int, labels: list[str]) -> None:
    client.request("POST", f"/repos/{repository}/issues/{number}/labels", json={"labels": labels})
