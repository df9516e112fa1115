"""The Action's `fix` input (issue 15): the rewrite committed to a bot's bump branch and pushed
to a real bare repository; refused, with the reason, on other branches, on a checkout that is
not the PR's head, and when the token may not push. The API is the real HTTP server on
127.0.0.1 of fake_github.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

from fake_github import TOKEN, git
from typer.testing import CliRunner

from auditor.cli import app

BRANCH = "dependabot/pip/torch-1.13.0"


def remote_for(repo_path: Path, tmp_path: Path) -> Path:
    """A bare origin holding the PR's branch, and the workspace on that branch at its head."""
    git(repo_path, "checkout", "-q", "-b", BRANCH)
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo_path), str(bare)], check=True, capture_output=True)
    git(repo_path, "remote", "add", "origin", str(bare))
    return bare


def run(env: dict[str, str]):
    result = CliRunner().invoke(app, ["github"], env=env)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert TOKEN not in result.output
    return result


def test_keep_old_is_committed_to_the_bot_branch_with_what_was_rewritten(
    make_repo, github_api, actions_env, outputs_of, tmp_path,
):
    repo = make_repo()
    bare = remote_for(repo.path, tmp_path)
    github_api.permissions = {"push": True, "pull": True}
    result = run(actions_env(repo, github_api.url, AUDITOR_FIX="keep-old"))
    assert result.exit_code == 1, result.output  # the report is of the code before the fix
    pushed = git(bare, "rev-parse", BRANCH)
    assert pushed != repo.head and git(bare, "rev-parse", f"{BRANCH}^") == repo.head
    assert outputs_of(tmp_path / "output.txt")["fix-commit"] == pushed
    message = git(bare, "log", "-1", "--format=%B", BRANCH)
    assert message.startswith("auditor fix --keep-old: torch 1.12.1 -> 1.13.0\n")
    assert "- data/windows.py:15 torch-floor-divide-rounds-toward-floor: template (truncates toward zero" in message
    assert "Proven by fix probes: none run (probe: true runs them)." in message
    assert git(bare, "log", "-1", "--format=%an", BRANCH) == "auditor[bot]"
    windows = git(bare, "show", f"{BRANCH}:data/windows.py")
    assert "return torch.div(centred, window, rounding_mode='trunc')" in windows
    changed = git(bare, "diff", "--name-only", repo.head, BRANCH).splitlines()
    assert "requirements.txt" not in changed and "data/windows.py" in changed
    assert f"fix commit {pushed} pushed" in result.output
    (comment,) = github_api.comments
    assert f"auditor pushed {pushed[:12]} to {BRANCH}: the keep-old rewrite of" in comment["body"]
    assert "<details><summary>Suggested fix (keep-old:" in comment["body"]  # what the commit holds, per change
    assert git(repo.path, "status", "--porcelain") == ""


def test_no_commit_on_a_branch_that_is_not_a_bots(make_repo, github_api, actions_env, tmp_path):
    repo = make_repo()
    bare = remote_for(repo.path, tmp_path)
    env = actions_env(repo, github_api.url, author="alice", AUDITOR_FIX="keep-old")
    event = Path(env["GITHUB_EVENT_PATH"])
    event.write_text(event.read_text("utf-8").replace(BRANCH, "feature/torch"), "utf-8")
    result = run(env)
    assert "the branch feature/torch is not a bot's (dependabot/ or renovate/, or a PR opened by a bot): no fix commit" in result.output
    assert git(bare, "rev-parse", BRANCH) == repo.head
    assert "Suggested fix (keep-old:" in github_api.comments[0]["body"]  # still suggested in the comment


def test_no_commit_when_the_token_may_not_push_or_the_head_is_not_checked_out(
    make_repo, github_api, actions_env, tmp_path,
):
    repo = make_repo()
    bare = remote_for(repo.path, tmp_path)
    github_api.permissions = {"push": False, "pull": True}
    refused = run(actions_env(repo, github_api.url, AUDITOR_FIX="adopt-new"))
    assert "the token may not push to this repository (contents: write is needed): no fix commit" in refused.output
    github_api.permissions = None
    git(repo.path, "checkout", "-q", "--detach", repo.base)
    elsewhere = run(actions_env(repo, github_api.url, AUDITOR_FIX="adopt-new"))
    assert f"the workspace is at {repo.base[:12]}, not the PR's head {repo.head[:12]}" in elsewhere.output
    assert git(bare, "rev-parse", BRANCH) == repo.head
    assert git(repo.path, "status", "--porcelain") == ""


def test_a_wrong_fix_value_is_a_usage_error(make_repo, github_api, actions_env):
    result = CliRunner().invoke(app, ["github"], env=actions_env(make_repo(), github_api.url, AUDITOR_FIX="yes"))
    assert result.exit_code == 2
    assert "--fix: expected keep-old, adopt-new or nothing, got 'yes'" in result.output
