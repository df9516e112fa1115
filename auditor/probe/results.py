"""Probe results cached by (probe, package versions, Python): a rerun is instant.

Only deterministic results are kept: a probe that crashed or timed out is run again next time.
A kept result that is damaged is run again, and one that cannot be written is not kept; each
such problem is in `problems`, for the report to say once.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from auditor.cachefiles import write_whole
from auditor.probe.runner import CHILD, ProbeResult


@cache
def _child_digest() -> str:
    return hashlib.sha256(CHILD.read_bytes()).hexdigest()[:16]


def probe_key(code: str, packages: dict[str, str | None], python: str) -> str:
    document = json.dumps(
        {
            "code": code,
            "packages": sorted(packages.items()),
            "python": python,
            "child": _child_digest(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


class ResultCache:
    """A directory of JSON files, one per key; `None` as root caches nothing."""

    def __init__(self, root: Path | None):
        self.root = root
        self.problems: list[str] = []

    def get(self, key: str) -> ProbeResult | None:
        if self.root is None:
            return None
        path = self.root / key[:2] / f"{key}.json"
        try:
            data = json.loads(path.read_text("utf-8"))
            output, error, warnings = data["output"], data["error"], data["warnings"]
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            self.problems.append(
                f"a kept probe result in {self.root} cannot be used ({type(exc).__name__}): the probe was run again"
            )
            return None
        if not (
            isinstance(output, str)
            and (error is None or isinstance(error, str))
            and isinstance(warnings, list)
            and all(isinstance(w, str) for w in warnings)
        ):
            self.problems.append(
                f"a kept probe result in {self.root} cannot be used (not a result): the probe was run again"
            )
            return None
        return ProbeResult(output, error, tuple(warnings))

    def put(self, key: str, result: ProbeResult) -> None:
        if self.root is None or result.crashed or (result.error or "").startswith("timed out"):
            return
        directory = self.root / key[:2]
        data = {"output": result.output, "error": result.error, "warnings": list(result.warnings)}
        try:
            directory.mkdir(parents=True, exist_ok=True)
            write_whole(directory / f"{key}.json", json.dumps(data).encode("utf-8"))
        except OSError as exc:
            self.problems.append(
                f"probe results cannot be kept in {self.root} ({exc.strerror or exc}): the next run probes again"
            )
