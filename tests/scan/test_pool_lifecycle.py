"""A scan's worker processes end with the scan: a real cold scan of a generated tree, stopped with
SIGTERM (what `timeout` and a cancelled CI job send), SIGINT or SIGKILL, leaves no process behind;
SIGTERM exits 143 and SIGINT 130, quietly. The processes are found in /proc as the scan's descendants."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60.0  # seconds before a poll gives up: a bound against hanging, not a measure

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc"),
    pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 if hasattr(os, "sched_getaffinity") else True,
                       reason="a scan starts worker processes on two cores or more"),
]


def _parent_and_state(pid: int) -> tuple[int, str] | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), fields[0]


def _descendants(pid: int) -> set[int]:
    parents = {int(p): found[0] for p in os.listdir("/proc") if p.isdigit() and (found := _parent_and_state(int(p)))}
    found, todo = set(), [pid]
    while todo:
        children = [child for child, parent in parents.items() if parent == todo[-1]]
        todo.pop()
        found.update(children)
        todo += children
    return found


def _running(pids: set[int]) -> set[int]:
    """Those still running (a zombie waiting for init to reap it has ended)."""
    return {pid for pid in pids if (found := _parent_and_state(pid)) is not None and found[1] != "Z"}


def _poll(condition: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Some 3 MB of Python in 400 files: a cold scan of a few seconds, shared out to processes."""
    root = tmp_path_factory.mktemp("tree")
    body = "".join(f"def f{i}(a, b):\n    x = torch.floor_divide(a, b)\n    return a // b + x.sum()\n\n"
                   for i in range(80))
    for package in range(10):
        folder = root / f"package{package}"
        folder.mkdir()
        for module in range(40):
            (folder / f"module{module}.py").write_text(f"import torch\n\n{body}", "utf-8")
    return root


# the processes a scan starts on two cores: its workers, and with "forkserver" (the default from
# Python 3.14 on Linux) the server that forks them and the resource tracker
METHODS = {"fork": 2, "forkserver": 4}


def _interruptible() -> None:
    """A scan started from a background job or a test worker inherits SIGINT ignored (as POSIX
    has it), and Python then never raises KeyboardInterrupt: a user's terminal does not."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def _scan(tree: Path, tmp_path: Path, method: str) -> Iterator[tuple[subprocess.Popen[bytes], set[int]]]:
    """A cold scan started, with this multiprocessing start method, and its processes once they
    are all there; what is left is killed at the end, so that a failing test leaves nothing
    behind either."""
    errors = (tmp_path / "stderr").open("wb")  # a file: an orphan holding a pipe would block the reader
    command = ("import multiprocessing, sys; multiprocessing.set_start_method(sys.argv.pop(1)); "
               "sys.argv[0] = 'auditor'; from auditor.cli import main; main()")
    process = subprocess.Popen(
        [sys.executable, "-c", command, method, "scan", str(tree), "--from", "1.12.1", "--to", "1.13.0", "--no-cache",
         "--format", "json", "--output", str(tmp_path / "report.json")],
        stdout=subprocess.DEVNULL, stderr=errors, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_interruptible,
    )
    workers: set[int] = set()
    try:
        _poll(lambda: workers.update(_descendants(process.pid)) or len(workers) >= METHODS[method]
              or process.poll() is not None, "the scan started no worker process")
        assert process.poll() is None, "the scan ended before it could be stopped: make the tree bigger"
        yield process, workers
    finally:
        errors.close()
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in _running(workers):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_scan_and_its_workers_quietly(
    tree: Path, tmp_path: Path, stop: int, code: int, method: str
) -> None:
    with _scan(tree, tmp_path, method) as (process, workers):
        process.send_signal(stop)
        assert process.wait(timeout=DEADLINE) == code
        _poll(lambda: not _running(workers), f"workers left behind: {sorted(_running(workers))}")
        errors = (tmp_path / "stderr").read_text("utf-8")
        assert "Traceback" not in errors and errors.strip() == "", errors


@pytest.mark.parametrize("method", METHODS)
def test_workers_end_by_themselves_when_the_scan_is_killed(tree: Path, tmp_path: Path, method: str) -> None:
    with _scan(tree, tmp_path, method) as (process, workers):
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=DEADLINE) == -signal.SIGKILL
        _poll(lambda: not _running(workers), f"workers left behind: {sorted(_running(workers))}")


def test_the_watch_on_the_parent_ends_an_orphan_without_prctl(tmp_path: Path) -> None:
    """The portable part (the one beside Linux's PR_SET_PDEATHSIG): a process whose parent is
    killed sees it gone and exits."""
    code = (
        "import os, sys, time\n"
        "from auditor.scan.project import _watch\n"
        "parent = os.getpid()  # before the fork: a child scheduled late would see init as its parent\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    _watch(parent, None)\n"
        "print(child, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert _running({child}) == {child}
        parent.kill()
        parent.wait()
        _poll(lambda: not _running({child}), "the orphan is still running")
    finally:
        if _running({child}):
            os.kill(child, signal.SIGKILL)


def test_the_pools_thread_raising_on_a_cancelled_future_prints_nothing() -> None:
    """While a stopped scan ends its workers, the executor's thread may set the pool's error on a
    future that shutdown has cancelled: Python 3.11 raises InvalidStateError there, in a thread,
    which printed a traceback on a SIGTERM about one run in thirty. The hook keeps that quiet and
    hands every other thread error on."""
    import concurrent.futures
    import threading

    from auditor.scan.project import _quiet_when_broken

    seen: list[type[BaseException]] = []
    quiet = _quiet_when_broken(lambda args: seen.append(args.exc_type))
    for error in (concurrent.futures.InvalidStateError("CANCELLED"), ValueError("a real one")):
        quiet(threading.ExceptHookArgs((type(error), error, None, None)))
    assert seen == [ValueError]
