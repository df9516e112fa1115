"""A small GitHub REST client: timeouts, retries on 429/5xx honouring Retry-After.

The token goes in the Authorization header only; errors carry the method, the path and
GitHub's message, never the headers. Pagination follows `Link: rel="next"` only to the
same API host, so the token is never sent elsewhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime
from typing import Any

import requests

from auditor import __version__

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class GitHubAPIError(Exception):
    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def _retry_after(response: requests.Response, now: float) -> float | None:
    """Seconds the server asks us to wait, from Retry-After or the rate-limit reset."""
    value = response.headers.get("Retry-After")
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(value).timestamp() - now)
            except (TypeError, ValueError):
                return None
    if response.headers.get("X-RateLimit-Remaining") == "0" and response.headers.get(
        "X-RateLimit-Reset"
    ):
        try:
            return max(0.0, float(response.headers["X-RateLimit-Reset"]) - now)
        except ValueError:
            return None
    return None


def _rate_limited(response: requests.Response) -> bool:
    """GitHub answers 403 (not only 429) when a primary or secondary rate limit is hit."""
    if response.status_code == 429:
        return True
    if response.status_code != 403:
        return False
    if response.headers.get("X-RateLimit-Remaining") == "0" or "Retry-After" in response.headers:
        return True
    try:
        message = str(response.json().get("message", ""))
    except ValueError:
        return False
    return "rate limit" in message.lower()


class GitHubClient:
    def __init__(
        self,
        api_url: str,
        token: str | None,
        *,
        timeout: float = 10.0,
        retries: int = 3,
        max_wait: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.max_wait = max_wait
        self.sleep = sleep
        self.session = requests.Session()
        self.session.headers.update(
            {
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": f"lockfile-auditor/{__version__}",
            }
        )
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def __repr__(self) -> str:
        return f"GitHubClient({self.api_url!r})"

    def _url(self, path: str) -> str:
        return path if path.startswith(self.api_url + "/") else f"{self.api_url}/{path.lstrip('/')}"

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        url = self._url(path)
        shown = url[len(self.api_url) :] or "/"
        backoff = 1.0
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self.session.request(method, url, timeout=self.timeout, **kwargs)
            except requests.RequestException as exc:
                if last:
                    raise GitHubAPIError(f"{method} {shown}: {type(exc).__name__}") from None
                self.sleep(backoff)
                backoff *= 2
                continue
            if response.status_code < 400:
                return response
            limited = _rate_limited(response)
            if (limited or response.status_code in RETRY_STATUSES) and not last:
                wait = _retry_after(response, time.time())
                if wait is None:
                    wait = backoff
                    backoff *= 2
                if wait <= self.max_wait:
                    self.sleep(wait)
                    continue
            raise GitHubAPIError(
                self._describe(method, shown, response, limited), response.status_code
            )
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _describe(method: str, shown: str, response: requests.Response, limited: bool) -> str:
        try:
            detail = str(response.json().get("message", "")) or response.reason
        except ValueError:
            detail = response.reason or ""
        text = f"{method} {shown}: HTTP {response.status_code} {detail}".rstrip()
        if limited:
            text += " (rate limited)"
        elif response.status_code == 401:  # the token itself was refused, whatever it may do
            text += " (the token is invalid or expired)"
        elif response.status_code == 403:
            text += (
                " (the token needs `pull-requests: write`; PRs from forks get a read-only token)"
            )
        return text

    def json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """A request whose answer must be one JSON object."""
        response = self.request(method, path, **kwargs)
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise GitHubAPIError(
                f"{method} {path}: the answer is not a JSON object", response.status_code
            )
        return data

    def paginate(self, path: str, params: dict[str, Any] | None = None) -> Iterator[Any]:
        url: str | None = path
        query = {"per_page": 100, **(params or {})}
        while url:
            response = self.request("GET", url, params=query)
            query = {}  # the next link carries the query
            try:
                page = response.json()
            except ValueError:
                raise GitHubAPIError(
                    f"GET {path}: the answer is not JSON", response.status_code
                ) from None
            yield from page if isinstance(page, list) else []
            following = response.links.get("next", {}).get("url")
            url = following if following and following.startswith(self.api_url + "/") else None
