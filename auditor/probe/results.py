"""Probe results cached by (probe, package versions, Python): a rerun is instant.

Only deterministic results are kept: a probe that crashed or timed out is run again next time.
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
        {"code": code, "packages": sorted(packages.items()), "python": python, "child": _child_digest()},
        sort_keys=True,
    )
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


class ResultCache:
    """A directory of JSON files, one per key; `None` as root caches nothing."""

    def __init__(self, root: Path | None):
        self.root = root

    def get(self, key: str) -> ProbeResult | None:
        if self.root is None:
            return None
        try:
            data = json.loads((self.root / key[:2] / f"{key}.json").read_text("utf-8"))
            return ProbeResult(data["output"], data["error"], tuple(data["warnings"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, result: ProbeResult) -> None:
        if self.root is None or result.crashed or (result.error or "").startswith("timed out"):
            return
        directory = self.root / key[:2]
        directory.mkdir(parents=True, exist_ok=True)
        data = {"output": result.output, "error": result.error, "warnings": list(result.warnings)}
        write_whole(directory / f"{key}.json", json.dumps(data).encode("utf-8"))
