"""Run a batch of probes in one subprocess of a given interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from auditor.errors import ProbeError

CHILD = Path(__file__).with_name("child.py")
MARKER = "@@auditor-probe-results@@"


@dataclass(frozen=True, slots=True)
class ProbeResult:
    output: str
    error: str | None
    warnings: tuple[str, ...] = ()

    @property
    def observed(self) -> str:
        """What the probe showed: its printed line, or the exception it let escape."""
        return self.output if self.error is None else (f"{self.output}\n{self.error}".strip())


@dataclass(frozen=True, slots=True)
class Batch:
    python: str
    packages: dict[str, str | None]
    results: dict[str, ProbeResult]


def run_batch(
    probes: dict[str, str], packages: list[str], python: str | None = None, timeout: float = 300
) -> Batch:
    """Run each probe's code in one fresh interpreter, isolated from the others."""
    interpreter = python or sys.executable
    request = json.dumps({"probes": [{"id": k, "code": v} for k, v in probes.items()],
                          "packages": packages, "marker": MARKER})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["CUDA_VISIBLE_DEVICES"] = ""
    try:
        done = subprocess.run(
            [interpreter, "-I", str(CHILD)], input=request, capture_output=True, text=True,
            timeout=timeout, env=env, check=False,
        )
    except FileNotFoundError as exc:
        raise ProbeError(f"no such interpreter: {interpreter}") from exc
    except subprocess.TimeoutExpired as exc:
        raise ProbeError(f"probe batch timed out after {timeout:.0f} s in {interpreter}") from exc
    _, found, payload = done.stdout.rpartition(MARKER)
    if not found:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ProbeError(f"probe batch failed in {interpreter} (exit {done.returncode}): {tail[0]}")
    document = json.loads(payload)
    return Batch(
        python=document["python"],
        packages=document["packages"],
        results={
            k: ProbeResult(v["output"], v["error"], tuple(v["warnings"]))
            for k, v in document["results"].items()
        },
    )
