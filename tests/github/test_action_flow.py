"""`auditor github` end to end: a real git repository, a real HTTP server for the API."""

from __future__ import annotations

import json

import pytest
from fake_github import NEW_LOCK, OLD_LOCK, PR_NUMBER, REPOSITORY, TOKEN
from typer.testing import CliRunner

from auditor.cli import app
from auditor.github.comment import MARKER

COMMENTS = f"/repos/{REPOSITORY}/issues/{PR_NUMBER}/comments"


def run(env: dict[str, str], *args: str):
    result = CliRunner().invoke(app, ["github", *args], env=env)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert TOKEN not in result.output
    return result


def test_creates_then_updates_one_sticky_comment(make_repo, github_api, actions_env, outputs_of, tmp_path):
    repo = make_repo()
    env = actions_env(repo, github_api.url)

    first = run(env)
    assert first.exit_code == 1, first.output  # findings at or above the default fail-on
    assert len(github_api.comments) == 1
    comment = github_api.comments[0]
    assert comment["body"].startswith(MARKER + "\n## auditor")
    assert "Dependabot bumps torch 1.12.1 -> 1.13.0" in comment["body"]
    assert f"https://github.com/{REPOSITORY}/blob/{repo.head}/data/windows.py#L14" in comment["body"]
    assert "call sites in 4 files affected" in comment["body"]
    outputs = outputs_of(tmp_path / "output.txt")
    assert int(outputs["findings"]) >= 8
    assert outputs["comment-url"] == comment["html_url"]
    assert json.loads(outputs["transitions"])[0] == {
        "package": "torch", "from": "1.12.1", "to": "1.13.0", "direction": "upgrade", "environment": None, "variant": None,
    }
    assert "call sites in 4 files affected" in (tmp_path / "summary.md").read_text("utf-8")
    assert "::error file=data/windows.py,line=14" in first.output
    assert "PR comment created" in first.output

    # a new push fixes the quantize.py call sites: the same comment is updated, never a second one
    source = (repo.path / "quantize.py").read_text("utf-8")
    repo.commit({"quantize.py": source.replace("dtype=torch.int8", "dtype=torch.int16")}, "fix")
    env = actions_env(repo, github_api.url)
    second = run(env)
    assert second.exit_code == 1
    assert len(github_api.comments) == 1
    assert github_api.requests("POST") == [f"POST {COMMENTS}"]
    assert github_api.requests("PATCH") == [f"PATCH /repos/{REPOSITORY}/issues/comments/{comment['id']}"]
    assert repo.head in github_api.comments[0]["body"]
    assert "PR comment updated" in second.output

    # the same run again changes nothing: no write at all
    third = run(env)
    assert "PR comment unchanged" in third.output
    assert len(github_api.requests("PATCH")) == 1 and len(github_api.comments) == 1


def test_finds_its_comment_on_a_later_page(make_repo, github_api, actions_env):
    for i in range(130):
        github_api.add_comment(f"comment {i}")
    ours = github_api.add_comment(f"{MARKER}\nold report")
    github_api.add_comment("after ours")
    run(actions_env(make_repo(), github_api.url))
    assert len(github_api.comments) == 132
    assert ours["body"] != f"{MARKER}\nold report"
    assert github_api.requests("POST") == []
    assert len(github_api.requests("GET")) == 2  # two pages of 100


def test_api_error_warns_and_still_writes_summary_and_exit_code(make_repo, github_api, actions_env, outputs_of, tmp_path):
    github_api.fail("GET", COMMENTS, 500, {"message": "Server Error"}, {"Retry-After": "0"}, times=10)
    env = actions_env(make_repo(), github_api.url)
    result = run(env)
    assert result.exit_code == 1
    assert "::warning title=auditor::could not write the PR comment: GET " in result.output
    assert "HTTP 500 Server Error" in result.output
    assert len(github_api.requests("GET")) == 4  # one try and three retries
    assert "affected" in (tmp_path / "summary.md").read_text("utf-8")
    assert outputs_of(tmp_path / "output.txt")["comment-url"] == ""

    github_api.log.clear()
    relaxed = run(env, "--fail-on", "none")
    assert relaxed.exit_code == 0


def test_forbidden_names_the_permission(make_repo, github_api, actions_env):
    github_api.fail("POST", COMMENTS, 403, {"message": "Resource not accessible by integration"})
    result = run(actions_env(make_repo(), github_api.url))
    assert result.exit_code == 1
    assert "HTTP 403 Resource not accessible by integration" in result.output
    assert "pull-requests: write" in result.output
    assert len(github_api.requests("POST")) == 1  # a 403 that is not a rate limit is not retried



def test_a_refused_token_is_called_invalid_not_short_of_a_permission(make_repo, github_api, actions_env):
    env = actions_env(make_repo(), github_api.url)
    env["GITHUB_TOKEN"] = "ghp_expired0000000000000000000000000000"  # the fake server answers 401 Bad credentials
    result = run(env)
    assert result.exit_code == 1  # the audit's own verdict stands
    assert "HTTP 401 Bad credentials (the token is invalid or expired)" in result.output
    assert "pull-requests: write" not in result.output
    assert "ghp_expired" not in result.output

@pytest.mark.parametrize(
    ("status", "body"),
    [(429, {"message": "Too Many Requests"}),
     (403, {"message": "You have exceeded a secondary rate limit."})],
)
def test_rate_limit_waits_for_retry_after(make_repo, github_api, actions_env, status, body):
    github_api.fail("GET", COMMENTS, status, body, {"Retry-After": "1"})
    result = run(actions_env(make_repo(), github_api.url))
    assert result.exit_code == 1, result.output
    gets = [t for m, p, t in github_api.log if m == "GET"]
    assert len(gets) == 2
    assert gets[1] - gets[0] >= 0.9
    assert len(github_api.comments) == 1
    assert "::warning" not in result.output


def test_server_error_echoing_the_token_is_redacted(make_repo, github_api, actions_env):
    github_api.fail("POST", COMMENTS, 422, {"message": f"bad token {TOKEN}"})
    result = run(actions_env(make_repo(), github_api.url))  # run() asserts the token is absent
    assert "bad token ***" in result.output


def test_no_token_warns_and_exits_by_findings(make_repo, github_api, actions_env, tmp_path):
    env = actions_env(make_repo(), github_api.url)
    del env["GITHUB_TOKEN"]
    result = run(env)
    assert result.exit_code == 1
    assert "no GITHUB_TOKEN" in result.output
    assert github_api.log == []
    assert "affected" in (tmp_path / "summary.md").read_text("utf-8")


def test_on_findings_mode_stays_quiet_when_nothing_changed(make_repo, github_api, actions_env, outputs_of, tmp_path):
    repo = make_repo({"README.md": "docs only\n"})
    env = actions_env(repo, github_api.url, title="Fix the docs", author="someone", AUDITOR_COMMENT="on-findings")
    result = run(env)
    assert result.exit_code == 0, result.output
    assert github_api.requests("POST") == []
    summary = (tmp_path / "summary.md").read_text("utf-8")
    assert "No spec change crossed" in summary and "No lockfile changed" in summary
    assert outputs_of(tmp_path / "output.txt")["findings"] == "0"


def test_manifest_only_bump_is_read_from_the_title(make_repo, github_api, actions_env):
    repo = make_repo({"setup.cfg": "[options]\ninstall_requires = torch>=1.13,<1.14\n"})
    body = "Bumps [torch](https://github.com/pytorch/pytorch) from 1.12.1 to 1.13.0.\n"
    result = run(actions_env(repo, github_api.url, body=body))
    assert result.exit_code == 1
    assert "setup.cfg does not pin torch (it asks for &lt;1.14,>=1.13)" in github_api.comments[0]["body"]
    assert "torch 1.12.1 -> 1.13.0" in result.output  # the setup.cfg's range moves no version: the PR's bump


def test_a_requirement_update_is_read_as_the_newest_versions_its_ranges_allow(make_repo, github_api, actions_env):
    repo = make_repo({"setup.cfg": "[options]\ninstall_requires = torch>=1.11,<1.14\n"})
    title = "Update torch requirement from <1.13,>=1.11 to >=1.11,<1.14"
    result = run(actions_env(repo, github_api.url, title=title, body=""))
    assert result.exit_code == 1  # the example's floor divisions, crossed at 1.13.0
    comment = github_api.comments[0]["body"]
    assert "\n- torch: the requirement moves from &lt;1.13,>=1.11 to >=1.11,&lt;1.14, read as 1.12.0 -> 1.13.0" in comment
    assert "torch 1.12.0 -> 1.13.0" in result.output


def test_fetch_metadata_inputs_name_the_bump(make_repo, github_api, actions_env):
    repo = make_repo({"README.md": "x\n"})
    env = actions_env(repo, github_api.url, title="Chore", author="someone",
                      AUDITOR_DEPENDENCY_NAMES="torch", AUDITOR_PREVIOUS_VERSION="1.12.1",
                      AUDITOR_NEW_VERSION="1.13.0")
    assert run(env).exit_code == 1


def test_label_and_project_in_a_subfolder(make_repo, github_api, actions_env, tmp_path):
    repo = make_repo(project="ml")
    env = actions_env(repo, github_api.url, AUDITOR_PROJECT="ml", AUDITOR_LABEL="torch-behaviour-change",
                      AUDITOR_SARIF=str(tmp_path / "out.sarif"))
    result = run(env)
    assert result.exit_code == 1
    assert f"/blob/{repo.head}/ml/data/windows.py#L14" in github_api.comments[0]["body"]
    assert github_api.labels == ["torch-behaviour-change"]
    assert "::error file=ml/data/windows.py,line=14" in result.output
    sarif = json.loads((tmp_path / "out.sarif").read_text("utf-8"))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "ml/data/windows.py" in uris


def test_lockfile_patterns_limit_what_is_read(make_repo, github_api, actions_env, outputs_of, tmp_path):
    repo = make_repo({"constraints/gpu.txt": OLD_LOCK})
    repo.base = repo.head
    repo.commit({"requirements.txt": NEW_LOCK, "constraints/gpu.txt": NEW_LOCK})
    env = actions_env(repo, github_api.url, title="x", author="someone", AUDITOR_LOCKFILES="constraints/*.txt")
    result = run(env)
    assert result.exit_code == 1
    assert json.loads(outputs_of(tmp_path / "output.txt")["lockfiles"]) == ["constraints/gpu.txt"]
    assert "Lockfiles compared in" in github_api.comments[0]["body"]


def test_a_new_lockfile_moves_from_the_pins_its_project_had(make_repo, github_api, actions_env, outputs_of, tmp_path):
    repo = make_repo({"requirements-gpu.txt": NEW_LOCK})
    result = run(actions_env(repo, github_api.url, title="x", author="someone"))
    assert json.loads(outputs_of(tmp_path / "output.txt")["lockfiles"]) == ["requirements-gpu.txt"]
    assert result.exit_code == 1
    moved = json.loads(outputs_of(tmp_path / "output.txt")["transitions"])[0]
    assert (moved["from"], moved["to"], moved["direction"]) == ("1.12.1", "1.13.0", "upgrade")


def test_unreadable_event_is_exit_2(make_repo, github_api, actions_env, tmp_path):
    env = actions_env(make_repo(), github_api.url)
    (tmp_path / "event.json").write_text("{not json", "utf-8")
    result = run(env)
    assert result.exit_code == 2
    assert "event.json:1: the event is not JSON" in result.output
    assert "::error title=auditor::" in result.output
    assert "auditor could not run" in (tmp_path / "summary.md").read_text("utf-8")



@pytest.mark.parametrize(("project", "message"), [
    ("no-such-folder", "no-such-folder: no such project folder"),
    ("/dev/null", "/dev/null: the project to scan is neither a folder nor a file"),
])
def test_a_project_that_cannot_be_scanned_is_exit_2(make_repo, github_api, actions_env, project, message):
    result = run(actions_env(make_repo(), github_api.url, AUDITOR_PROJECT=project))
    assert result.exit_code == 2, result.output
    assert message in result.output

def test_malformed_new_lock_names_the_commit_and_file(make_repo, github_api, actions_env):
    repo = make_repo({"requirements.txt": "torch==not-a-version\n"})
    result = run(actions_env(repo, github_api.url))
    assert result.exit_code == 2
    assert f"{repo.head[:12]}:requirements.txt" in result.output


def test_probe_outcomes_reach_the_comment_and_probe_errors_only_warn(make_repo, github_api, actions_env, monkeypatch):
    """The Action's probing is tolerant: outcomes reach the comment, a probe that cannot run is a
    warning. The provisioning (minutes of installs) is what is swapped here, not the wiring."""
    from dataclasses import replace

    from auditor import pipeline
    from auditor.errors import ProbeError
    from auditor.github import action
    from auditor.github.event import ActionsEnv
    from auditor.knowledge.base import KnowledgeBase
    from auditor.models import ProbeOutcome, ProbeRun
    from auditor.probe import SILENT
    from auditor.requests import Probing
    from auditor.settings import probe_settings

    env = ActionsEnv.from_environ(actions_env(make_repo(), github_api.url))
    probing = Probing(probe_settings(), SILENT, tolerant=True)

    def confirm(result, settings, reporter, scanned):
        assert settings is probing.settings
        assert scanned is not None and (scanned / "data" / "windows.py").is_file()  # head's tree
        return replace(result, probes=tuple(
            ProbeOutcome(c.id, "confirmed", ProbeRun("1.12.1", "before"), ProbeRun("1.13.0", "after"))
            for c in result.changes
        ))

    monkeypatch.setattr(pipeline, "with_probes", confirm)
    done = action.run(env, action.ActionOptions(probe=probing), KnowledgeBase.load())
    assert done.result.probes and "✅ confirmed by a probe" in github_api.comments[0]["body"]

    def broken(result, settings, reporter, scanned):
        raise ProbeError("no interpreter for Python 3.7")

    monkeypatch.setattr(pipeline, "with_probes", broken)
    done = action.run(env, action.ActionOptions(probe=probing), KnowledgeBase.load())
    assert done.warnings == ("probes did not run: no interpreter for Python 3.7",)
    assert done.result.findings and len(github_api.comments) == 1


def test_real_process_as_the_action_runs_it(make_repo, github_api, actions_env, tmp_path):
    """`python -m auditor github` in a subprocess, environment only, as action.yml runs it."""
    import os
    import subprocess
    import sys

    github_api.fail("GET", COMMENTS, 502, {"message": "Bad Gateway"}, {"Retry-After": "0"}, times=10)
    env = {**os.environ, **actions_env(make_repo(), github_api.url), "AUDITOR_FAIL_ON": "high"}
    done = subprocess.run([sys.executable, "-m", "auditor", "github"], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    assert TOKEN not in done.stderr + done.stdout
    assert "::warning title=auditor::could not write the PR comment" in done.stdout
    assert "affected" in (tmp_path / "summary.md").read_text("utf-8")


def test_push_event_audits_before_to_after_without_a_comment(make_repo, github_api, actions_env, tmp_path):
    repo = make_repo()
    env = actions_env(repo, github_api.url)
    (tmp_path / "event.json").write_text(json.dumps({"before": repo.base, "after": repo.head}), "utf-8")
    env["GITHUB_EVENT_NAME"] = "push"
    result = run(env)
    assert result.exit_code == 1
    assert github_api.log == []
    assert f"Lockfiles compared in {repo.base[:12]}..{repo.head[:12]}: requirements.txt" in (
        tmp_path / "summary.md").read_text("utf-8")


def test_fail_on_confidence_is_read_from_the_environment(make_repo, github_api, actions_env, outputs_of, tmp_path):
    env = {**actions_env(make_repo(), github_api.url), "AUDITOR_FAIL_ON_CONFIDENCE": "certain"}
    result = CliRunner().invoke(app, ["github"], env=env)
    assert result.exit_code == 2 and "fail-on-confidence" in result.output
    env["AUDITOR_FAIL_ON_CONFIDENCE"] = "high"  # the example's call sites are all high confidence
    assert run(env).exit_code == 1
    assert outputs_of(tmp_path / "output.txt")["severity"] == "high"
