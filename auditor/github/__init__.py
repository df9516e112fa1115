"""The GitHub side: Actions environment, changed lockfiles, the API, the sticky comment, bump PRs."""

from auditor.github.api import GitHubAPIError, GitHubClient
from auditor.github.bump import Bump, BumpInfo, parse_bump
from auditor.github.comment import MARKER, upsert_comment
from auditor.github.event import ActionsEnv, PullRequest
from auditor.gitrange import GitError, changed_lockfiles, parse_range

__all__ = [
    "MARKER",
    "ActionsEnv",
    "Bump",
    "BumpInfo",
    "GitError",
    "GitHubAPIError",
    "GitHubClient",
    "PullRequest",
    "changed_lockfiles",
    "parse_bump",
    "parse_range",
    "upsert_comment",
]
