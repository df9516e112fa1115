# mypy: ignore-errors
# (untyped on purpose: Python 3.7 interpreters without auditor run this file as it is)
"""Runs inside the probed interpreter: a batch of probes in, one JSON line per event out.

Standard library only, and Python 3.6 syntax: this file is executed by interpreters that do not
have auditor installed (torch 1.x environments run on Python 3.7 to 3.10).

Protocol: `python -I child.py REQUEST.json`. The request holds the probes, the packages whose
versions to report, a per-probe timeout and a memory limit. Every line the child writes to its
original stdout starts with the marker and carries one JSON event: `hello` (interpreter and
package versions), `start` (a probe begins) and `result` (a probe ended). The parent reads them as
they come, so when a probe kills the process it knows which probe did, and keeps the others.
"""

import contextlib
import io
import json
import os
import re
import signal
import sys
import warnings


class ProbeTimeout(BaseException):
    """Raised by the alarm inside a probe that runs past its time (Python code only)."""


def _versions(packages):
    try:
        from importlib import metadata
    except ImportError:  # Python 3.7: the backport if installed, else the dist-info folders
        try:
            import importlib_metadata as metadata  # type: ignore[no-redef]
        except ImportError:
            return {name: _installed_version(name) for name in packages}

    found = {}
    for name in packages:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def _normal(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def _installed_version(name):
    """`name`'s version from its `<name>-<version>.dist-info` (or `.egg-info`) on sys.path, as
    importlib.metadata reads it, for interpreters without it (3.7)."""
    wanted = _normal(name)
    for entry in sys.path:
        try:
            listing = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for folder in listing:
            stem, dot, suffix = folder.rpartition(".")
            if suffix not in ("dist-info", "egg-info") or not dot:
                continue
            project, _, version = stem.partition("-")
            if _normal(project) == wanted and version:
                return version.split("-")[0]  # an egg-info's name may go on: 1.0-py3.7
    return None


def _limit_memory(limit):
    if not limit:
        return
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # not on this platform, or above the hard limit
        pass


def _alarm(seconds):
    if seconds and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, seconds)


def _on_alarm(signum, frame):
    raise ProbeTimeout()


def _first_line(exc):
    lines = str(exc).strip().splitlines()
    return type(exc).__name__ + (": " + lines[0] if lines else "")


def _run(code, timeout):
    out = io.StringIO()
    error = None
    caught = []
    shown = warnings._showwarnmsg

    def seen(message):
        # Every warning that reaches display, also inside the probe's own catch_warnings (which
        # swaps `_showwarnmsg_impl`, not this hook): the category a user sees is what counts.
        caught.append(message)
        shown(message)

    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        warnings._showwarnmsg = seen
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                _alarm(timeout)
                try:
                    exec(compile(code, "<probe>", "exec"), {"__name__": "__probe__"})  # noqa: S102 - running probes is the job
                finally:
                    _alarm(0)
        except ProbeTimeout:
            error = f"timed out after {timeout:g} s"
        except MemoryError:
            error = "MemoryError: the probe ran out of its memory limit"
        except BaseException as exc:  # noqa: BLE001 - a probe may raise anything, SystemExit included
            error = _first_line(exc)
        finally:
            warnings._showwarnmsg = shown
    return {
        "output": out.getvalue().strip(),
        "error": error,
        "timeout": error is not None and error.startswith("timed out"),
        "warnings": [
            w.category.__name__ + ": " + str(w.message).strip().splitlines()[0]
            for w in caught
            if str(w.message).strip()
        ],
    }


def main():
    with open(sys.argv[1]) as handle:
        request = json.load(handle)
    # The protocol keeps the real stdout; anything else that writes to fd 1 (C code, a probe
    # printing through os.write) lands in stderr, which the parent keeps for diagnostics.
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    _limit_memory(request.get("memory_limit"))
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _on_alarm)
    marker = request["marker"]

    def send(event):
        channel.write(marker + json.dumps(event) + "\n")
        channel.flush()

    send(
        {
            "event": "hello",
            "python": "{}.{}.{}".format(*sys.version_info[:3]),
            "executable": sys.executable,
            "prefix": sys.prefix,
            "packages": _versions(request["packages"]),
        }
    )
    for item in request["probes"]:
        send({"event": "start", "id": item["id"]})
        result = _run(item["code"], request.get("probe_timeout"))
        result.update({"event": "result", "id": item["id"]})
        send(result)
    send({"event": "done"})


if __name__ == "__main__":
    main()
