"""The client alone, against the local server: retries, waits, limits, pagination."""

from __future__ import annotations

import time
from email.utils import formatdate

import pytest
from fake_github import PR_NUMBER, REPOSITORY, TOKEN

from auditor.github.api import GitHubAPIError, GitHubClient

COMMENTS = f"/repos/{REPOSITORY}/issues/{PR_NUMBER}/comments"


def client(url: str, sleeps: list[float], **kwargs) -> GitHubClient:
    return GitHubClient(url, TOKEN, sleep=sleeps.append, **kwargs)


def test_retry_after_seconds_is_honoured(github_api):
    sleeps: list[float] = []
    github_api.fail("GET", COMMENTS, 429, {"message": "slow down"}, {"Retry-After": "7"})
    assert list(client(github_api.url, sleeps).paginate(COMMENTS)) == []
    assert sleeps == [7.0]


def test_retry_after_http_date(github_api):
    sleeps: list[float] = []
    github_api.fail("GET", COMMENTS, 503, None, {"Retry-After": formatdate(time.time() + 30, usegmt=True)})
    list(client(github_api.url, sleeps).paginate(COMMENTS))
    assert len(sleeps) == 1 and 25 <= sleeps[0] <= 31


def test_rate_limit_reset_header(github_api):
    sleeps: list[float] = []
    reset = str(int(time.time()) + 20)
    github_api.fail("GET", COMMENTS, 403, {"message": "API rate limit exceeded"},
                    {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
    list(client(github_api.url, sleeps).paginate(COMMENTS))
    assert len(sleeps) == 1 and 15 <= sleeps[0] <= 21


def test_too_long_a_wait_gives_up_at_once(github_api):
    sleeps: list[float] = []
    github_api.fail("GET", COMMENTS, 429, {"message": "slow down"}, {"Retry-After": "3600"})
    with pytest.raises(GitHubAPIError, match=r"HTTP 429 slow down \(rate limited\)") as caught:
        list(client(github_api.url, sleeps, max_wait=60).paginate(COMMENTS))
    assert caught.value.status == 429 and sleeps == []


def test_server_errors_back_off_then_fail(github_api):
    sleeps: list[float] = []
    github_api.fail("POST", COMMENTS, 502, None, times=10)
    with pytest.raises(GitHubAPIError, match="HTTP 502"):
        client(github_api.url, sleeps, retries=3).json("POST", COMMENTS, json={"body": "x"})
    assert sleeps == [1.0, 2.0, 4.0]
    assert len(github_api.requests("POST")) == 4


def test_client_errors_are_not_retried(github_api):
    sleeps: list[float] = []
    with pytest.raises(GitHubAPIError, match="HTTP 404 Not Found"):
        client(github_api.url, sleeps).json("GET", f"/repos/{REPOSITORY}/nothing")
    assert sleeps == [] and len(github_api.log) == 1


def test_connection_refused_is_an_api_error_without_secrets():
    sleeps: list[float] = []
    with pytest.raises(GitHubAPIError) as caught:
        client("http://127.0.0.1:9", sleeps, retries=1, timeout=2).json("GET", "/x")
    assert "ConnectionError" in str(caught.value) and TOKEN not in str(caught.value)
    assert sleeps == [1.0]


def test_pagination_never_leaves_the_api_host(github_api):
    github_api.fail("GET", COMMENTS, 200, [{"id": 1, "body": "x"}],
                    {"Link": '<http://example.invalid/steal?page=2>; rel="next"'})
    assert len(list(client(github_api.url, []).paginate(COMMENTS))) == 1
    assert len(github_api.log) == 1


def test_token_not_in_repr():
    assert TOKEN not in repr(GitHubClient("http://127.0.0.1:1", TOKEN))


def test_an_answer_that_is_not_json_is_an_api_error(github_api):
    github_api.fail("POST", COMMENTS, 201, None)  # empty body
    with pytest.raises(GitHubAPIError, match="not a JSON object"):
        client(github_api.url, []).json("POST", COMMENTS, json={"body": "x"})
    github_api.fail("GET", COMMENTS, 200, None)
    with pytest.raises(GitHubAPIError, match="not JSON"):
        list(client(github_api.url, []).paginate(COMMENTS))
