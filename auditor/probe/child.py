"""Runs inside the probed interpreter: a batch of probes in, one JSON document out.

Standard library only: this file is executed by interpreters that do not have auditor installed.
"""

import contextlib
import io
import json
import os
import sys
import warnings


def _versions(packages):
    from importlib import metadata

    found = {}
    for name in packages:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def _run(code):
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                exec(compile(code, "<probe>", "exec"), {"__name__": "__probe__"})
            error = None
        except BaseException as exc:  # a probe may raise anything, SystemExit included
            lines = str(exc).strip().splitlines()
            error = type(exc).__name__ + (": " + lines[0] if lines else "")
    return {
        "output": out.getvalue().strip(),
        "error": error,
        "warnings": [w.category.__name__ + ": " + str(w.message).splitlines()[0] for w in caught if str(w.message)],
    }


def main():
    request = json.loads(sys.stdin.read())
    sys.stdin = open(os.devnull)
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    results = {item["id"]: _run(item["code"]) for item in request["probes"]}
    document = {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "packages": _versions(request["packages"]),
        "results": results,
    }
    sys.__stdout__.write("\n" + request["marker"] + json.dumps(document) + "\n")


if __name__ == "__main__":
    main()
