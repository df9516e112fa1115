"""Run a batch of probes in one subprocess of a given interpreter, with watchdogs.

One interpreter start per environment (importing torch dominates: 1-2 s), every probe isolated
inside it. A per-probe watchdog kills the child when a probe hangs in C code (the child's own
alarm only interrupts Python code); a probe that kills the batch (segfault, abort, hang) is rerun
alone to confirm it is the culprit (a crash may come from what earlier probes left behind; a hang
the watchdog timed is the running probe's), and the probes after it get a fresh child.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from auditor.errors import ProbeError

CHILD = Path(__file__).with_name("child.py")
MARKER = "@@auditor-probe@@"
GRACE = 3.0  # seconds the watchdog waits beyond the child's own alarm
DEFAULT_MEMORY_LIMIT = 4 << 30  # address space; torch's import maps about 0.8 GiB
# A CUDA build maps its CUDA libraries at import even without a GPU: 4.7 GiB of address space
# for torch 2.10.0+cu128 (VmPeak after `import torch`, 2026-12-01), 3.0 GiB for 2.11.0+cu130.
CUDA_MEMORY_LIMIT = 8 << 30


@dataclass(frozen=True, slots=True)
class ProbeResult:
    output: str
    error: str | None
    warnings: tuple[str, ...] = ()
    crashed: bool = False  # the probe killed or hung its interpreter

    @property
    def observed(self) -> str:
        """What the probe showed: its printed line, or the exception it let escape."""
        return self.output if self.error is None else (f"{self.output}\n{self.error}".strip())


@dataclass(frozen=True, slots=True)
class Batch:
    python: str
    packages: dict[str, str | None]
    results: dict[str, ProbeResult]
    executable: str = ""
    reruns: tuple[str, ...] = field(default=())  # probes that were run alone after killing a batch


@dataclass
class _Attempt:
    hello: dict[str, object] | None = None
    results: dict[str, ProbeResult] = field(default_factory=dict)
    running: str | None = None
    complete: bool = False
    failure: str = ""
    timed_out: bool = False


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
    process.wait()


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def _attempt(
    interpreter: str,
    probes: dict[str, str],
    packages: list[str],
    deadline: float,
    probe_timeout: float,
    memory_limit: int | None,
) -> _Attempt:
    attempt = _Attempt()
    request = {
        "probes": [{"id": k, "code": v} for k, v in probes.items()],
        "packages": packages,
        "marker": MARKER,
        "probe_timeout": probe_timeout,
        "memory_limit": memory_limit,
    }
    with tempfile.TemporaryDirectory(prefix="auditor-probe-") as tmp:
        request_file = Path(tmp, "request.json")
        request_file.write_text(json.dumps(request), "utf-8")
        stderr_file = Path(tmp, "stderr")
        with stderr_file.open("wb") as stderr:
            try:
                process = subprocess.Popen(
                    [interpreter, "-I", str(CHILD), str(request_file)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=stderr,
                    env=_environment(),
                    cwd=tmp,
                    start_new_session=True,
                )
            except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
                raise ProbeError(f"no such interpreter: {interpreter}") from exc
            _read(process, attempt, deadline, probe_timeout)
        if not attempt.complete and not attempt.failure:
            attempt.failure = _exit_reason(process.returncode, stderr_file)
    return attempt


def _exit_reason(code: int | None, stderr_file: Path) -> str:
    if code is not None and code < 0:
        return f"crashed the interpreter ({_signal_name(code)})"
    tail = stderr_file.read_text("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
    return f"ended the interpreter (exit {code}): {tail[0]}"


def _read(
    process: subprocess.Popen[bytes], attempt: _Attempt, deadline: float, probe_timeout: float
) -> None:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    buffer = b""
    started = time.monotonic()
    try:
        while True:
            now = time.monotonic()
            limit = deadline
            if attempt.running is not None:
                limit = min(limit, started + probe_timeout + GRACE)
            if now >= limit:
                _kill(process)
                attempt.timed_out = True
                attempt.failure = (
                    f"timed out after {probe_timeout:g} s (killed)"
                    if limit < deadline
                    else "the batch timed out"
                )
                return
            if not selector.select(timeout=min(limit - now, 1.0)):
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                process.wait()
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", "replace")
                if not text.startswith(MARKER):
                    continue
                event = json.loads(text[len(MARKER) :])
                kind = event.pop("event")
                if kind == "hello":
                    attempt.hello = event
                elif kind == "start":
                    attempt.running = event["id"]
                    started = time.monotonic()
                elif kind == "result":
                    attempt.results[event["id"]] = ProbeResult(
                        event["output"], event["error"], tuple(event["warnings"])
                    )
                    attempt.running = None
                elif kind == "done":
                    attempt.complete = True
    finally:
        selector.close()
        if process.poll() is None:
            process.wait(timeout=10) if attempt.complete else _kill(process)
        process.stdout.close()


def run_batch(
    probes: dict[str, str],
    packages: list[str],
    python: str | None = None,
    timeout: float = 300,
    probe_timeout: float = 60,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
) -> Batch:
    """Run each probe's code in one fresh interpreter, isolated from the others.

    `timeout` bounds the whole batch (reruns included), `probe_timeout` each probe. Raises
    ProbeError only when the interpreter cannot run at all; a probe that crashes, hangs or
    exhausts its memory gets a result saying so.
    """
    interpreter = python or sys.executable
    deadline = time.monotonic() + timeout
    pending = dict(probes)
    results: dict[str, ProbeResult] = {}
    hello: dict[str, object] | None = None
    reruns: list[str] = []
    while True:
        attempt = _attempt(interpreter, pending, packages, deadline, probe_timeout, memory_limit)
        hello = hello or attempt.hello
        results.update(attempt.results)
        if attempt.complete or not pending:
            break
        if attempt.hello is None:
            raise ProbeError(f"probe batch failed in {interpreter}: {attempt.failure}")
        culprit = attempt.running
        if culprit is None:  # died between probes: nothing to blame, nothing left to retry safely
            for probe_id in pending.keys() - results.keys():
                results[probe_id] = ProbeResult("", f"not run: {attempt.failure}", crashed=True)
            break
        if attempt.timed_out:  # the watchdog saw this probe hang: no doubt whose it is
            results[culprit] = ProbeResult("", attempt.failure, crashed=True)
        elif len(pending) > 1:  # a crash may come from what earlier probes left behind
            reruns.append(culprit)
            alone = _attempt(
                interpreter,
                {culprit: pending[culprit]},
                packages,
                deadline,
                probe_timeout,
                memory_limit,
            )
            failure = alone.failure or attempt.failure
            results[culprit] = alone.results.get(culprit) or ProbeResult("", failure, crashed=True)
        else:
            results[culprit] = ProbeResult("", attempt.failure, crashed=True)
        pending = {k: v for k, v in pending.items() if k not in results}
        if not pending:
            break
        if time.monotonic() >= deadline:
            for probe_id in pending:
                results[probe_id] = ProbeResult("", "not run: the batch timed out", crashed=True)
            break
    assert hello is not None
    return Batch(
        python=str(hello["python"]),
        packages=dict(hello["packages"]),  # type: ignore[call-overload]
        results={k: results[k] for k in probes},
        executable=str(hello.get("executable", interpreter)),
        reruns=tuple(reruns),
    )
