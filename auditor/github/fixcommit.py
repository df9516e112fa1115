"""The Action's opt-in fix commit (input `fix: keep-old | adopt-new`): the engine's
rewrite committed to the bump branch and pushed, only on a bot's branch (Dependabot, Renovate)
whose head is checked out and that the token may push to. Every refusal is a sentence.

The commit message lists each rewritten call site, which fixes a fix probe proved on the
bump's two versions (when `probe: true` ran them), and the sites left alone with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from auditor.errors import FixError
from auditor.fix.gitcheck import uncommitted
from auditor.fix.model import FixResult
from auditor.fix.writer import write
from auditor.github.api import GitHubAPIError, GitHubClient
from auditor.github.event import PullRequest
from auditor.gitrange import GitError, git
from auditor.models import AuditResult

BOT_BRANCHES = ("dependabot/", "renovate/")
AUTHOR = ("auditor[bot]", "auditor-bot@users.noreply.github.com")


@dataclass(frozen=True, slots=True)
class FixCommit:
    """What the fix commit did: its id, or why there is none."""

    sha: str | None
    message: str | None = None
    reason: str | None = None
    rewritten: int = 0


def is_bot_branch(pr: PullRequest) -> bool:
    """A Dependabot or Renovate branch, or a PR a bot opened."""
    return pr.head_ref.startswith(BOT_BRANCHES) or pr.author.endswith("[bot]")


def may_push(client: GitHubClient, repository: str) -> str | None:
    """Why the token may not push to the repository, or None when it may (or the API does not
    say: then the push itself decides)."""
    try:
        data = client.json("GET", f"/repos/{repository}")
    except GitHubAPIError:
        return None  # the push says whether it may
    permissions = data.get("permissions")
    if isinstance(permissions, dict) and permissions.get("push") is False:
        return "the token may not push to this repository (contents: write is needed)"
    return None


def commit_message(fixed: FixResult, result: AuditResult) -> str:
    moved = ", ".join(
        f"{t.package} {t.old} -> {t.new}" for t in result.transitions if t.old and t.new
    )
    lines = [f"auditor fix --{fixed.mode}: {moved or 'the bump'}", ""]
    lines.append(
        f"Rewritten ({len(fixed.applied)} call site{'s' if len(fixed.applied) != 1 else ''}):"
    )
    for a in fixed.applied:
        f = a.finding
        where = f"{f.path}:{f.line}" if f.cell is None else f"{f.path} cell {f.cell}:{f.line}"
        note = f" ({a.transform.note})" if a.transform.note else ""
        lines.append(f"- {where} {f.change}: {a.transform.action}{note}")
    changes = list(dict.fromkeys(a.finding.change for a in fixed.applied))
    proofs = {p.change: [c for c in p.fixes if c.mode == fixed.mode] for p in result.probes}
    proven = [
        f"- {c}: {check.summary()}"
        for c in changes
        for check in proofs.get(c, ())
        if check.status == "verified"
    ]
    unproven = [
        c for c in changes if not any(check.status == "verified" for check in proofs.get(c, ()))
    ]
    lines += [
        "",
        "Proven by fix probes on both versions:"
        if proven
        else "Proven by fix probes: none run (probe: true runs them).",
    ]
    lines += proven
    if proven and unproven:
        lines.append(f"Not proven here: {', '.join(unproven)}")
    if fixed.left_alone:
        lines += ["", f"Left alone ({len(fixed.left_alone)}):"]
        for x in fixed.left_alone:
            lines.append(f"- {x.finding.path}:{x.finding.line} {x.finding.change}: {x.reason}")
    return "\n".join(lines) + "\n"


def commit_fix(
    repo: Path,
    project: Path,
    pr: PullRequest,
    result: AuditResult,
    fixed: FixResult,
    client: GitHubClient | None,
    repository: str | None,
) -> FixCommit:
    """Write the pipeline's rewrite `fixed`, commit and push it to the PR's branch; or say why
    not. Nothing is written when any condition fails."""
    if not is_bot_branch(pr):
        return FixCommit(
            None,
            reason=(
                f"the branch {pr.head_ref or '(unknown)'} is not a bot's "
                f"({' or '.join(BOT_BRANCHES)}, or a PR opened by a bot): no fix commit"
            ),
        )
    if not pr.head_ref or not pr.head_sha:
        return FixCommit(None, reason="the event names no head branch and commit: no fix commit")
    try:
        checked_out = git(repo, "rev-parse", "HEAD").stdout.strip()
    except GitError as exc:
        return FixCommit(None, reason=f"no fix commit: {exc}")
    if checked_out != pr.head_sha:
        return FixCommit(
            None,
            reason=(
                f"the workspace is at {checked_out[:12]}, not the PR's head {pr.head_sha[:12]} "
                "(check out the head branch, e.g. actions/checkout with ref: the PR's head_ref): no fix commit"
            ),
        )
    dirty = uncommitted(repo)
    if dirty:
        return FixCommit(
            None,
            reason=f"uncommitted changes in the workspace ({', '.join(dirty[:3])}): no fix commit",
        )
    if client is not None and repository is not None:
        refused = may_push(client, repository)
        if refused is not None:
            return FixCommit(None, reason=f"{refused}: no fix commit")
    if not fixed.changed:
        return FixCommit(None, reason=f"no call site has a {fixed.mode} rewrite: no fix commit")
    try:
        written = write(fixed, project)
    except FixError as exc:  # nothing was written
        return FixCommit(None, reason=f"{exc}: no fix commit")
    message = commit_message(fixed, result)
    paths = [str((project / p).resolve().relative_to(repo.resolve())) for p in written]
    name, email = AUTHOR
    identity = [
        "-c",
        f"user.name={name}",
        "-c",
        f"user.email={email}",
        "-c",
        "commit.gpgsign=false",
    ]
    try:
        git(repo, "add", "--", *paths)
        git(repo, *identity, "commit", "-q", "-m", message)
        sha = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, "push", "-q", "origin", f"HEAD:refs/heads/{pr.head_ref}")
    except GitError as exc:
        git(
            repo, "reset", "-q", "--hard", pr.head_sha, check=False
        )  # leave the workspace as it was
        return FixCommit(None, message, f"the fix commit could not be pushed: {exc}")
    return FixCommit(sha, message, rewritten=len(fixed.applied))
