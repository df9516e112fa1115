"""A real HTTP server on 127.0.0.1 standing in for the GitHub API, and real git repositories (fixtures re-exported by conftest.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

TOKEN = "ghs_test0123456789SECRETtoken"
REPOSITORY = "octo/ml"
PR_NUMBER = 7

OLD_LOCK = "# pip freeze\nnumpy==1.23.5\ntorch==1.12.1\n"
NEW_LOCK = "# pip freeze\nnumpy==1.23.5\ntorch==1.13.0\n"

_COMMENTS = re.compile(rf"^/repos/{REPOSITORY}/issues/(\d+)/comments$")
_COMMENT = re.compile(rf"^/repos/{REPOSITORY}/issues/comments/(\d+)$")
_LABELS = re.compile(rf"^/repos/{REPOSITORY}/issues/(\d+)/labels$")


@dataclass
class Scripted:
    """A canned answer for the next requests matching method and path."""

    method: str
    path: str
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1


@dataclass
class FakeGitHub:
    """The slice of the REST API the Action uses, with state and a request log."""

    url: str = ""
    comments: list[dict[str, Any]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    log: list[tuple[str, str, float]] = field(default_factory=list)  # method, path, time
    script: list[Scripted] = field(default_factory=list)
    bodies: list[str] = field(default_factory=list)  # raw request bodies, to look for leaks
    next_id: int = 1000
    permissions: dict[str, bool] | None = None  # GET /repos/{REPOSITORY}'s `permissions`, when set

    def fail(self, method: str, path: str, status: int, body: Any = None,
             headers: dict[str, str] | None = None, times: int = 1) -> None:
        self.script.append(Scripted(method, path, status, body, headers or {}, times))

    def add_comment(self, body: str, user: str = "someone") -> dict[str, Any]:
        self.next_id += 1
        comment = {
            "id": self.next_id, "body": body, "user": {"login": user},
            "html_url": f"https://github.com/{REPOSITORY}/pull/{PR_NUMBER}#issuecomment-{self.next_id}",
        }
        self.comments.append(comment)
        return comment

    def requests(self, method: str | None = None) -> list[str]:
        return [f"{m} {p}" for m, p, _ in self.log if method is None or m == method]


def _handler(state: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    import time

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _handle(self, method: str) -> None:
            parts = urlsplit(self.path)
            path, query = parts.path, parse_qs(parts.query)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode() if length else ""
            state.bodies.append(raw)
            state.log.append((method, path, time.monotonic()))
            for scripted in state.script:
                if scripted.method == method and scripted.path == path and scripted.times > 0:
                    scripted.times -= 1
                    return self._send(scripted.status, scripted.body, scripted.headers)
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self._send(401, {"message": "Bad credentials"})
            payload = json.loads(raw) if raw else {}
            if m := _COMMENTS.match(path):
                if method == "GET":
                    per_page = int(query.get("per_page", ["30"])[0])
                    page = int(query.get("page", ["1"])[0])
                    chunk = state.comments[(page - 1) * per_page: page * per_page]
                    headers = {}
                    if page * per_page < len(state.comments):
                        headers["Link"] = (f'<{state.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
                    return self._send(200, chunk, headers)
                if method == "POST":
                    return self._send(201, state.add_comment(payload["body"], "github-actions[bot]"))
            if (m := _COMMENT.match(path)) and method == "PATCH":
                comment = next((c for c in state.comments if c["id"] == int(m[1])), None)
                if comment is None:
                    return self._send(404, {"message": "Not Found"})
                comment["body"] = payload["body"]
                return self._send(200, comment)
            if path == f"/repos/{REPOSITORY}" and method == "GET":
                extra = {"permissions": state.permissions} if state.permissions is not None else {}
                return self._send(200, {"full_name": REPOSITORY, **extra})
            if _LABELS.match(path) and method == "POST":
                state.labels += payload["labels"]
                return self._send(200, [{"name": n} for n in state.labels])
            return self._send(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def do_PATCH(self) -> None:
            self._handle("PATCH")

    return Handler


@pytest.fixture
def github_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    state = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=Test", "-c", "user.email=test@example.com",
         "-c", "commit.gpgsign=false", *args],
        capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()


@dataclass
class Repo:
    path: Path
    base: str
    head: str

    def commit(self, files: dict[str, str], message: str = "change") -> str:
        for name, text in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, "utf-8")
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "-m", message)
        self.head = git(self.path, "rev-parse", "HEAD")
        return self.head


@pytest.fixture
def make_repo(tmp_path: Path, examples: Path) -> Callable[..., Repo]:
    """A repository whose base commit pins torch 1.12.1 and whose head bumps it to 1.13.0."""

    def make(head_files: dict[str, str] | None = None, project: str = "") -> Repo:
        repo = tmp_path / "repo"
        shutil.copytree(examples / "project", repo / project if project else repo)
        (repo / "requirements.txt").write_text(OLD_LOCK, "utf-8")
        (repo / "README.md").write_text("a project\n", "utf-8")
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        base = git(repo, "rev-parse", "HEAD")
        handle = Repo(repo, base, base)
        handle.commit(head_files if head_files is not None else {"requirements.txt": NEW_LOCK}, "Bump torch")
        return handle

    return make


@pytest.fixture
def actions_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., dict[str, str]]:
    """The environment of an Actions step on a pull_request event; clears any real one."""
    import os

    for name in list(os.environ):
        if name.startswith(("GITHUB_", "AUDITOR_", "RUNNER_")):
            monkeypatch.delenv(name)

    def make(repo: Repo, api_url: str, title: str = "Bump torch from 1.12.1 to 1.13.0",
             body: str = "", author: str = "dependabot[bot]", **extra: str) -> dict[str, str]:
        event = {
            "action": "synchronize",
            "number": PR_NUMBER,
            "pull_request": {
                "number": PR_NUMBER, "title": title, "body": body, "user": {"login": author},
                "base": {"sha": repo.base, "ref": "main"},
                "head": {"sha": repo.head, "ref": "dependabot/pip/torch-1.13.0"},
            },
        }
        event_path = tmp_path / "event.json"
        event_path.write_text(json.dumps(event), "utf-8")
        summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
        summary.write_text("", "utf-8")
        output.write_text("", "utf-8")
        return {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_API_URL": api_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_WORKSPACE": str(repo.path),
            "GITHUB_SHA": repo.head,
            **extra,
        }

    return make


def read_outputs(path: Path) -> dict[str, str]:
    """Parse $GITHUB_OUTPUT the way the runner does (name=value and heredoc blocks)."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text("utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for inner in lines:
                if inner == delimiter:
                    break
                value.append(inner)
            outputs[name] = "\n".join(value)
        else:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


@pytest.fixture
def outputs_of() -> Callable[[Path], dict[str, str]]:
    return read_outputs
