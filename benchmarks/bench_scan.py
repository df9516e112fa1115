"""How fast `auditor scan` reads a big tree, next to what Python itself can do.

    python benchmarks/bench_scan.py [--tree DIR] [--repeat N] [--torchfix]

On the sources of transformers (downloaded with pip and unpacked when DIR is missing) it times,
in one run and on the same files:

- the parse floor: one process reading and `ast.parse`-ing every file the scan would read;
- a cold scan (`auditor scan --from 1.10 --to 2.15`, empty cache), end to end as a user runs it;
- a warm rescan of the unchanged tree (the same cache);
- TorchFix on the same tree, with --torchfix when the `torchfix` command is installed.

The code measured is a copy of `auditor/` and `knowledge/` taken when the run starts (run with
PYTHONPATH pointing at it), so that edits made meanwhile neither change the code halfway nor
turn the warm scan's hits into misses (the cache key includes the scanner's source).

Each scan runs as its own process; its wall time, CPU time (itself and its workers, then each
apart: "own cpu", "workers") and peak memory (the sum over its process tree, sampled) are printed
with the ratios to the floor: the ratio of the medians, and the median of each round's own ratio
("paired", steadier on a machine whose speed drifts). The machine's other load shows in the wall
times: compare ratios from one run, not numbers from different runs; on a shared machine the CPU
seconds are the steadier figures.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

TRANSFORMERS = "5.18.0"
DEFAULT_TREE = Path(tempfile.gettempdir()) / "bench-src" / "tree"

FLOOR = """
import ast, sys, time, warnings
from pathlib import Path
from auditor.scan.discover import discover
from auditor.scan.scanner import read_source
files = discover(Path(sys.argv[1])).files
started = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for file in files:
        try:
            ast.parse(read_source(file))  # decoded as Python decodes it, as the scan does
        except (SyntaxError, ValueError):
            pass
print(len(files), sum(f.stat().st_size for f in files), time.perf_counter() - started)
"""

# `python -m auditor ARGS`, which then says on its last line of stderr the CPU seconds of the
# scanning process itself and of its workers (those it waited for): where a cold scan's time goes.
SCAN = """
import resource, runpy, sys
sys.argv = ["auditor", *sys.argv[1:]]
try:
    runpy.run_module("auditor", run_name="__main__", alter_sys=True)
finally:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print("cpu", own.ru_utime + own.ru_stime, workers.ru_utime + workers.ru_stime, file=sys.stderr)
"""


@dataclass
class Run:
    wall: float
    cpu: float
    peak_mb: float
    output: bytes = b""
    own: float | None = None  # CPU seconds of the scanning process alone (SCAN)
    workers: float | None = None  # and of its workers


def prepare(tree: Path, version: str) -> None:
    if tree.is_dir() and any(tree.iterdir()):
        return
    download = tree.parent
    download.mkdir(parents=True, exist_ok=True)
    wheel = download / f"transformers-{version}-py3-none-any.whl"
    if not wheel.exists():
        print(f"downloading transformers {version} ...", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", f"transformers=={version}", "-d", str(download)],
            check=True,
        )
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tree)


def _tree_rss(root: int) -> int:
    """Resident bytes of `root` and all its descendants, from /proc (0 where there is none)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        rss[pid] = int(fields[21]) * resource.getpagesize()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += children.get(pid, [])
    return total


def measure(command: list[str], timeout: float | None = None, env: dict[str, str] | None = None) -> Run | None:
    """Wall time, CPU time of the process tree and its peak summed RSS; None on timeout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        cwd=env["PYTHONPATH"] if env else None,  # `python -m` puts the working directory first
    )
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            if os.path.isdir("/proc"):
                peak = max(peak, _tree_rss(process.pid))
            stop.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        output, said = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None
    finally:
        stop.set()
        sampler.join()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if peak == 0:  # no /proc: the largest single process is what the OS tells
        peak = after.ru_maxrss * 1024
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}")
    run = Run(wall, cpu, peak / (1 << 20), output)
    last = said.splitlines()[-1:]
    if last and last[0].startswith(b"cpu "):
        run.own, run.workers = (float(x) for x in last[0].split()[1:])
    return run


def snapshot(into: Path) -> dict[str, str]:
    """A copy of the package and its knowledge as an install has them: compiled to bytecode (even
    where PYTHONDONTWRITEBYTECODE is set), the knowledge read and checked as the wheel's build
    does (hatch_build.py); the environment that makes Python use it."""
    repository = Path(__file__).resolve().parents[1]
    for name in ("auditor", "knowledge"):
        shutil.copytree(repository / name, into / name, ignore=shutil.ignore_patterns("__pycache__", "_kept*.json"))
    compileall.compile_dir(into / "auditor", quiet=1)
    env = {**os.environ, "PYTHONPATH": str(into)}
    ship = "import sys; from pathlib import Path; from auditor.knowledge.stored import SHIPPED, ship; " \
           "ship(Path(sys.argv[1]), Path(sys.argv[1]) / SHIPPED)"
    subprocess.run([sys.executable, "-c", ship, str(into / "knowledge")], check=True, env=env, cwd=into)
    return env


def scan_command(tree: Path, cache: Path, args: argparse.Namespace) -> list[str]:
    return [
        sys.executable, "-c", SCAN, "scan", str(tree), "--from", args.from_version, "--to", args.to_version,
        "--format", "json", "--cache-dir", str(cache), "--fail-on", "none",
    ]


def one_round(tree: Path, args: argparse.Namespace, env: dict[str, str]) -> dict[str, Run]:
    runs: dict[str, Run] = {}
    floor = measure([sys.executable, "-c", FLOOR, str(tree)], env=env)
    assert floor is not None
    files, size, parse_seconds = floor.output.split()
    floor.wall = float(parse_seconds)  # the loop alone, without interpreter start-up
    runs["floor"] = floor
    with tempfile.TemporaryDirectory(prefix="auditor-bench-cache-") as cache:
        cold = measure(scan_command(tree, Path(cache), args), env=env)
        warm = measure(scan_command(tree, Path(cache), args), env=env)
        assert cold is not None and warm is not None
        runs["cold"], runs["warm"] = cold, warm
        if cold.output != warm.output:
            print("warning: the warm scan's report differs from the cold scan's", file=sys.stderr)
    print(f"  {int(files)} files, {int(size) / 1e6:.1f} MB: floor {floor.wall:.2f} s, cold {cold.wall:.2f} s, "
          f"warm {warm.wall:.2f} s", file=sys.stderr)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE, help="sources to scan (made when missing)")
    parser.add_argument("--transformers", default=TRANSFORMERS, help="version to download when the tree is missing")
    parser.add_argument("--from", dest="from_version", default="1.10")
    parser.add_argument("--to", dest="to_version", default="2.15")
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the median of each figure is printed")
    parser.add_argument("--torchfix", action="store_true", help="also time TorchFix (when installed)")
    parser.add_argument("--torchfix-bin", default=None, help="the torchfix command (default: on PATH)")
    parser.add_argument("--torchfix-timeout", type=float, default=1800)
    args = parser.parse_args()

    args.tree = args.tree.resolve()
    prepare(args.tree, args.transformers)
    rounds = []
    with tempfile.TemporaryDirectory(prefix="auditor-bench-code-") as code:
        env = snapshot(Path(code))
        for number in range(args.repeat):
            print(f"round {number + 1}/{args.repeat}", file=sys.stderr)
            rounds.append(one_round(args.tree, args, env))

    def median(name: str, attribute: str) -> float:
        return statistics.median(getattr(r[name], attribute) for r in rounds)

    def paired(name: str) -> float:
        """The median over rounds of each round's own ratio: the floor and the scans of one round
        run within seconds of each other, so a slow spell of the machine moves both."""
        return statistics.median(r[name].wall / r["floor"].wall for r in rounds)

    floor = median("floor", "wall")
    rows = [("parse floor (1 process)", "floor"), ("auditor cold (empty cache)", "cold"), ("auditor warm (rescan)", "warm")]
    print(f"tree: {args.tree}  range: torch {args.from_version} -> {args.to_version}  cores: {os.cpu_count()}  "
          f"rounds: {args.repeat} (medians)")
    print(f"{'':30} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'/ floor':>8} {'paired':>8} {'own cpu':>8} {'workers':>8}")
    for label, name in rows:
        wall = median(name, "wall")
        split = "".join(f" {median(name, part):8.2f}" for part in ("own", "workers") if rounds[0][name].own is not None)
        print(f"{label:30} {wall:8.2f} {median(name, 'cpu'):8.2f} {median(name, 'peak_mb'):8.0f} {wall / floor:8.2f} "
              f"{paired(name):8.2f}{split}")

    if args.torchfix:
        command = args.torchfix_bin or shutil.which("torchfix")
        if command is None:
            print("torchfix: not installed (pip install torchfix, or --torchfix-bin PATH)")
        else:
            run = measure([command, str(args.tree)], timeout=args.torchfix_timeout)
            if run is None:
                print(f"{'torchfix':30} {'>' + format(args.torchfix_timeout, '.0f'):>8} {'':>8} {'':>8} "
                      f"{'>' + format(args.torchfix_timeout / floor, '.0f'):>8}  (stopped at the timeout)")
            else:
                print(f"{'torchfix':30} {run.wall:8.2f} {run.cpu:8.2f} {run.peak_mb:8.0f} {run.wall / floor:8.2f}")


if __name__ == "__main__":
    main()
