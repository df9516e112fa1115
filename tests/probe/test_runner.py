"""The batch runner on the running interpreter: isolation, capture, watchdogs, crash recovery."""

from __future__ import annotations

import sys
import time

import pytest

from auditor.errors import ProbeError
from auditor.probe.runner import run_batch


def test_each_probe_reports_its_output_warnings_and_escaping_exception() -> None:
    batch = run_batch(
        {
            "prints": "print('a'); print('b')",
            "warns": "import warnings\nwarnings.warn('careful', FutureWarning)\nwarnings.warn('careful', FutureWarning)\nprint('done')",
            "raises": "print('before')\nraise ValueError('bad value\\nsecond line')",
            "exits": "raise SystemExit(3)",
            "isolated": "x = 1",
            "namespace": "print('x' in globals())",
        },
        ["packaging", "no-such-package-here"],
    )
    results = batch.results
    assert results["prints"].output == "a\nb" and results["prints"].error is None
    assert results["warns"].warnings == ("FutureWarning: careful", "FutureWarning: careful")
    assert results["raises"].output == "before"
    assert results["raises"].error == "ValueError: bad value"
    assert results["raises"].observed == "before\nValueError: bad value"
    assert results["exits"].error == "SystemExit: 3"
    assert results["namespace"].output == "False"
    assert batch.python == "{}.{}.{}".format(*sys.version_info[:3])
    assert batch.packages["packaging"] and batch.packages["no-such-package-here"] is None
    assert batch.reruns == ()


def test_the_child_runs_isolated_without_stdin_or_cuda() -> None:
    batch = run_batch({
        "flags": "import sys; print(sys.flags.isolated, sys.flags.ignore_environment)",
        "stdin": "print(input())",
        "cuda": "import os; print(repr(os.environ['CUDA_VISIBLE_DEVICES']))",
        "noise": "import os; os.write(1, b'raw bytes on fd 1\\n'); print('kept')",
    }, [])
    assert batch.results["flags"].output == "1 1"
    assert batch.results["stdin"].error == "EOFError: EOF when reading a line"
    assert batch.results["cuda"].output == "''"
    assert batch.results["noise"].output == "kept"


@pytest.mark.slow
def test_a_probe_that_loops_in_python_times_out_and_the_batch_goes_on() -> None:
    batch = run_batch({"loop": "while True: pass", "after": "print('after')"}, [], probe_timeout=1)
    assert batch.results["loop"].error == "timed out after 1 s"
    assert batch.results["after"].output == "after"
    assert batch.reruns == ()  # the child's own alarm caught it: no restart


@pytest.mark.slow
def test_a_probe_that_hangs_beyond_the_alarm_is_killed_and_the_others_still_report() -> None:
    hang = (
        "import signal, time\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\n"
        "time.sleep(600)\n"
    )
    start = time.monotonic()
    batch = run_batch({"first": "print(1)", "hang": hang, "last": "print(3)"}, [], probe_timeout=1)
    assert time.monotonic() - start < 30
    assert batch.results["first"].output == "1"
    assert batch.results["last"].output == "3"
    assert batch.results["hang"].crashed
    assert "timed out after 1 s (killed)" in (batch.results["hang"].error or "")
    assert batch.reruns == ()  # the watchdog timed the running probe: no doubt, no rerun


@pytest.mark.slow
def test_probes_that_crash_the_interpreter_are_rerun_alone_and_named() -> None:
    batch = run_batch({
        "before": "print('before')",
        "segfault": "import ctypes; ctypes.string_at(0)",
        "middle": "print('middle')",
        "abort": "import os; os.abort()",
        "after": "print('after')",
    }, [])
    assert [batch.results[k].output for k in ("before", "middle", "after")] == ["before", "middle", "after"]
    assert batch.results["segfault"].error == "crashed the interpreter (SIGSEGV)"
    assert batch.results["abort"].error == "crashed the interpreter (SIGABRT)"
    assert batch.results["segfault"].crashed and batch.results["abort"].crashed
    assert batch.reruns == ("segfault", "abort")


def test_a_single_crashing_probe_is_not_rerun() -> None:
    batch = run_batch({"abort": "import os; os.abort()"}, [])
    assert batch.results["abort"].error == "crashed the interpreter (SIGABRT)"
    assert batch.reruns == ()


def test_the_memory_limit_stops_a_runaway_allocation() -> None:
    batch = run_batch({"big": "x = bytearray(3 << 30)", "small": "print(len(bytearray(1 << 20)))"},
                      [], memory_limit=1 << 30)
    assert batch.results["big"].error == "MemoryError: the probe ran out of its memory limit"
    assert batch.results["small"].output == "1048576"


def test_an_interpreter_that_does_not_exist_is_an_error() -> None:
    with pytest.raises(ProbeError, match="no such interpreter: /nonexistent/bin/python"):
        run_batch({"a": "print(1)"}, [], python="/nonexistent/bin/python")


def test_an_interpreter_that_cannot_start_the_child_is_an_error(tmp_path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'not really python' >&2\nexit 7\n")
    fake.chmod(0o755)
    with pytest.raises(ProbeError, match=r"exit 7\): not really python"):
        run_batch({"a": "print(1)"}, [], python=str(fake))


def test_python_3_7_without_importlib_metadata_reports_versions_from_dist_info() -> None:
    # pyenv's 3.7 has no importlib.metadata and no backport: the child reads the dist-info folders
    from auditor.probe.interpreters import discover

    found = [i.path for i in discover() if i.minor == "3.7"]
    if not found:
        pytest.skip("no Python 3.7 on this machine")
    batch = run_batch({"ok": "print('ran')"}, ["pip", "Pip", "importlib-metadata", "no-such-package-here"],
                      python=str(found[0]))
    assert batch.python.startswith("3.7.")
    assert batch.results["ok"].output == "ran"
    assert batch.packages["pip"] and batch.packages["pip"][0].isdigit()
    assert batch.packages["Pip"] == batch.packages["pip"]
    assert batch.packages["importlib-metadata"] is None and batch.packages["no-such-package-here"] is None


def test_a_cuda_build_gets_room_for_the_libraries_its_import_maps() -> None:
    # torch 2.10.0+cu128's import maps 4.7 GiB of address space without a GPU: the same mapping,
    # untouched (no memory used), fails under the CPU default and fits under the CUDA one
    from auditor.probe.environments import Environment
    from auditor.probe.executor import ProbeSettings, cuda_build
    from auditor.probe.runner import CUDA_MEMORY_LIMIT, DEFAULT_MEMORY_LIMIT
    from auditor.settings import Provisioning, probe_settings

    code = "import mmap\nm = mmap.mmap(-1, 4700 << 20)\nprint('mapped')"
    assert run_batch({"libs": code}, [], memory_limit=DEFAULT_MEMORY_LIMIT).results["libs"].output != "mapped"
    assert run_batch({"libs": code}, [], memory_limit=CUDA_MEMORY_LIMIT).results["libs"].output == "mapped"

    python = "{}.{}.{}".format(*sys.version_info[:3])
    assert cuda_build(Environment(sys.executable, python, {"torch": "2.10.0", "nvidia-cublas-cu12": "12.8.4.1"}))
    assert cuda_build(Environment(sys.executable, python, {"torch": "2.10.0+cu128"}))
    assert not cuda_build(Environment(sys.executable, python, {"torch": "2.13.0+cpu", "numpy": "2.4.6"}))
    default = probe_settings(Provisioning(), None, no_cache=True)
    assert (default.memory_limit, default.cuda_memory_limit) == (DEFAULT_MEMORY_LIMIT, CUDA_MEMORY_LIMIT)
    assert ProbeSettings().cuda_memory_limit == CUDA_MEMORY_LIMIT
    given = probe_settings(Provisioning(memory_limit=2048), None, no_cache=True)
    assert given.memory_limit == given.cuda_memory_limit == 2048 << 20
    assert probe_settings(Provisioning(memory_limit=0), None, no_cache=True).cuda_memory_limit is None
