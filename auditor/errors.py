"""Error families and exit codes. Only the CLI turns these into exit codes."""

from __future__ import annotations

import re
from enum import IntEnum
from pathlib import Path

# a scheme is tried once per run of scheme characters (`\b` would try it inside `a.a.a...` too)
_USERINFO = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]*(?:@[^/\s@]*)*@")
# a whole URL, matched at once to its end (no backtracking: each URL is read once)
_URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://\S*")


def redact(text: str) -> str:
    """Text with every URL's user and password (`https://user:token@host`) and the values of its
    query string (`?access_token=...`) replaced by `***`."""
    if "@" in text:
        text = _USERINFO.sub(r"\1***@", text)
    if "?" in text:
        text = _URL.sub(lambda m: _without_query_values(m.group(0)), text)
    return text


def _without_query_values(url: str) -> str:
    """`https://host/x?a=1&token#frag` -> `https://host/x?a=***&***#frag`: the keys say what was
    there (`access_token`, `X-Amz-Signature`), no value is shown."""
    head, mark, rest = url.partition("?")
    query, hash_mark, fragment = rest.partition("#")
    if not query:
        return url
    hidden = "&".join(
        key + "=***" if sep else "***"
        for key, sep, _ in (p.partition("=") for p in query.split("&"))
    )
    return head + mark + hidden + hash_mark + fragment


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1
    ERROR = 2
    CRASH = 3  # the tool itself failed: a bug, never the input
    BROKEN_PIPE = 141  # the reader of standard output went away, as for a process ended by SIGPIPE
    TERMINATED = 143  # SIGTERM (`timeout`, a cancelled CI job), as for a process ended by it


class AuditorError(Exception):
    """An input or usage problem the user can fix; printed as `path:line: message`."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        where = self.path or ""
        if self.path and self.line is not None:
            where = f"{self.path}:{self.line}"
        return redact(f"{where}: {self.message}" if where else self.message)


class UsageError(AuditorError):
    """The command line asks for something that cannot be done."""


class LockfileError(AuditorError):
    """A lockfile is unreadable, malformed or of an unknown format."""


class KnowledgeError(AuditorError):
    """One or more knowledge entries are invalid; `problems` holds every one of them."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems

    def __str__(self) -> str:
        return "\n".join(self.problems)


class ScanError(AuditorError):
    """The project to scan cannot be read at all (a single bad file is skipped, not raised)."""


class FixError(AuditorError):
    """The rewritten files cannot be written (none of them is, then)."""


class ProbeError(AuditorError):
    """A probe environment cannot be provisioned or run."""


class HarvestError(AuditorError):
    """The package index cannot be read, or a release's wheel cannot be downloaded or opened."""
