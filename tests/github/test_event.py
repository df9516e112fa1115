import json

from fake_github import read_outputs

from auditor.github.event import ActionsEnv, pull_request, push_range, write_outputs


def test_environment_is_read_and_token_hidden(tmp_path):
    env = ActionsEnv.from_environ({
        "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "ghs_secret", "GITHUB_API_URL": "https://ghe.example/api/v3",
        "GITHUB_EVENT_PATH": str(tmp_path / "e.json"), "GITHUB_STEP_SUMMARY": "", "GITHUB_WORKSPACE": "/w",
    })
    assert env.repository == "o/r" and env.api_url == "https://ghe.example/api/v3"
    assert env.step_summary is None and str(env.workspace) == "/w"
    assert "ghs_secret" not in repr(env)


def test_pull_request_and_push_events():
    event = {"number": 3, "pull_request": {"number": 3, "title": "t", "body": None, "user": {"login": "u"},
                                           "base": {"sha": "b" * 40}, "head": {"sha": "h" * 40, "ref": "x"}}}
    pr = pull_request(event)
    assert pr is not None and pr.number == 3 and pr.body == "" and pr.base_sha == "b" * 40
    assert pull_request({"ref": "refs/heads/main"}) is None
    assert push_range({"before": "a" * 40, "after": "c" * 40}) == ("a" * 40, "c" * 40)
    assert push_range({"before": "0" * 40, "after": "c" * 40}) is None  # a new branch


def test_outputs_round_trip(tmp_path):
    path = tmp_path / "out"
    values = {"findings": "3", "transitions": json.dumps([{"a": 1}]), "notes": "two\nlines", "empty": ""}
    write_outputs(path, values)
    assert read_outputs(path) == values
