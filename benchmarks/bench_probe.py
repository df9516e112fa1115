"""Cold and warm timings of the probe executor, and the disk each environment takes.

    python benchmarks/bench_probe.py            # numpy 1.26.0 -> 2.0.0 and a torch 2.13.0 environment
    python benchmarks/bench_probe.py --network  # also torch 1.12.1 (Python 3.10) -> 2.13.0, ~740 MB once
    python benchmarks/bench_probe.py --json     # the same numbers as JSON

"cold" builds the environments in a fresh auditor cache; "uv cold" also starts uv from an empty
cache of its own (every wheel unpacked again). "warm" reruns with environments and results
cached; "envs warm" reruns with the environments kept and the stored results removed, which
measures running the probes themselves. Everything is built in temporary directories (the
network scenario's second pass aside) and removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase
from auditor.models import Transition
from auditor.probe import ProbeSettings, Sources, probe_transitions, verify
from auditor.probe.environments import Provisioner, disk_usage
from auditor.probe.interpreters import discover

NUMPY_ENTRY = '''
id = "numpy-scalar-promotion-nep50"
package = "numpy"
introduced = "2.0.0"
kind = "behaviour"
silent = true
severity = "medium"
title = "NumPy scalars keep their precision in arithmetic with Python numbers (NEP 50)"
symbols = ["numpy.float32"]
references = ["https://numpy.org/neps/nep-0050-scalar-promotion.html"]

[[match]]
call = "numpy.float32"

[docs]
what = "NumPy 1.x let a Python float upcast a float32 scalar to float64; NumPy 2 keeps float32."
why = "Results lose precision silently where code relied on the upcast to float64."
before = "numpy.float32(3) + 3.0  # float64 on 1.x, float32 on 2.x"
keep_old = "numpy.float64(numpy.float32(3)) + 3.0"
adopt_new = "numpy.float32(3) + numpy.float32(3.0)"

[probe]
code = """
import numpy as np
print((np.float32(3) + 3.0).dtype)
"""
before = "float64"
after = "float32"
'''


def mib(size: int) -> str:
    return f"{size / (1 << 20):.0f} MiB"


def timed(action: Callable[[], Any]) -> tuple[Any, float]:
    start = time.monotonic()
    result = action()
    return result, time.monotonic() - start


@contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def uv_cache(cold: bool) -> Iterator[None]:
    if not cold:
        yield
        return
    with scratch("bench-uv-cache-") as cache:
        previous = os.environ.get("UV_CACHE_DIR")
        os.environ["UV_CACHE_DIR"] = str(cache)
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("UV_CACHE_DIR")
            else:
                os.environ["UV_CACHE_DIR"] = previous


def local_sources() -> Sources:
    """pip's configuration with its local (file://) indexes in place of PyPI."""
    pip = Sources(use_pip_config=True, torch_index=None).resolved()
    local = [u for u in (pip.index_url, *pip.extra_index_urls) if u and u.startswith("file:")]
    return Sources(index_url=local[0], extra_index_urls=tuple(local[1:]), find_links=pip.find_links,
                   torch_index=None) if local else pip


def environments(cache: Path) -> dict[str, dict[str, str]]:
    found = {}
    for root in sorted(p for p in (cache / "envs").glob("*-py*") if p.is_dir()):
        total, unique = disk_usage(root)
        found[root.name] = {"files": mib(total), "not hardlinked": mib(unique)}
    return found


def numpy_scenario(uv_cold: bool) -> dict[str, Any]:
    with scratch("bench-kb-") as kb_root, scratch("bench-cache-") as cache, uv_cache(uv_cold):
        (kb_root / "numpy").mkdir()
        (kb_root / "numpy" / "promotion.toml").write_text(NUMPY_ENTRY, "utf-8")
        kb = KnowledgeBase.load(kb_root)
        transition = Transition("numpy", Version("1.26.0"), Version("2.0.0"))
        settings = ProbeSettings(cache_dir=cache, sources=local_sources(), pythons=(discover()[0],))
        cold, cold_s = timed(lambda: probe_transitions([transition], kb.entries, settings))
        warm, warm_s = timed(lambda: probe_transitions([transition], kb.entries, settings))
        shutil.rmtree(cache / "results")
        _, envs_warm_s = timed(lambda: probe_transitions([transition], kb.entries, settings))
        assert cold == warm and cold[0].status == "confirmed", cold
        return {
            "scenario": f"numpy 1.26.0 -> 2.0.0, 1 probe ({'uv cold' if uv_cold else 'uv warm'})",
            "cold s": round(cold_s, 2), "warm s": round(warm_s, 3), "envs warm s": round(envs_warm_s, 2),
            "environments": environments(cache),
        }


def torch_scenario(kb: KnowledgeBase, uv_cold: bool) -> dict[str, Any]:
    entries = kb.for_package("torch")
    with scratch("bench-cache-") as cache, uv_cache(uv_cold):
        provisioner = Provisioner(cache / "envs", local_sources())
        env, build_s = timed(lambda: provisioner.provision("torch", "2.13.0", [], [discover()[0]]))
        _, reuse_s = timed(lambda: provisioner.provision("torch", "2.13.0", [], [discover()[0]]))
        verification, run_s = timed(lambda: verify(entries, python=env.python))
        return {
            "scenario": f"torch 2.13.0+cpu environment ({'uv cold' if uv_cold else 'uv warm'})",
            "cold s": round(build_s, 2), "reuse s": round(reuse_s, 3),
            f"{sum(1 for e in entries if e.probe)} torch probes in one batch s": round(run_s, 2),
            "verify failures": sum(v.status == "fail" for v in verification.results),
            "environments": environments(cache),
        }


def network_scenario(kb: KnowledgeBase) -> dict[str, Any]:
    """Against PyPI: torch 1.12.1 needs Python 3.10, 2.13.0 comes from the local CPU wheel."""
    transition = Transition("torch", Version("1.12.1"), Version("2.13.0"))
    entries = kb.crossed([transition])
    with scratch("bench-cache-") as cache:
        settings = ProbeSettings(cache_dir=cache)
        cold, cold_s = timed(lambda: probe_transitions([transition], entries, settings))
        warm, warm_s = timed(lambda: probe_transitions([transition], entries, settings))
        assert cold == warm
        statuses: dict[str, int] = {}
        for outcome in cold:
            statuses[outcome.status] = statuses.get(outcome.status, 0) + 1
        return {
            "scenario": f"torch 1.12.1 -> 2.13.0, {len(cold)} probes (wheels in uv's cache after the first ever run)",
            "cold s": round(cold_s, 2), "warm s": round(warm_s, 3), "outcomes": statuses,
            "environments": environments(cache),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", action="store_true", help="also torch 1.12.1 -> 2.13.0 from PyPI")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--skip-torch", action="store_true", help="numpy only")
    args = parser.parse_args()
    kb = KnowledgeBase.load()
    rows = [numpy_scenario(uv_cold=True), numpy_scenario(uv_cold=False)]
    if not args.skip_torch:
        rows += [torch_scenario(kb, uv_cold=True), torch_scenario(kb, uv_cold=False)]
    if args.network:
        rows.append(network_scenario(kb))
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    for row in rows:
        print(row.pop("scenario"))
        envs = row.pop("environments")
        for key, value in row.items():
            print(f"    {key}: {value}")
        for name, sizes in envs.items():
            print(f"    {name}: {sizes['files']} of files, {sizes['not hardlinked']} not hardlinked from uv's cache")


if __name__ == "__main__":
    main()
