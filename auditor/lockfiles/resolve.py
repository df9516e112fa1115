"""`--resolve`: turn an input that is not a lock (`requirements.in`, a pyproject's dependencies,
ranges such as `torch>=1.12,<2`) into pins, with pip-tools' `pip-compile`, for this interpreter."""

from __future__ import annotations

import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from auditor.errors import LockfileError
from auditor.lockfiles.requirements import FORMAT as REQUIREMENTS_FORMAT
from auditor.lockfiles.requirements import parse as parse_requirements
from auditor.models import Lock, Pin

TIMEOUT = 900  # seconds; a cold resolution of torch downloads large wheels' metadata


# the extra a pyproject.toml's optional dependency holds in: resolved with the rest, as asked for
_IN_EXTRA = re.compile(r'(^| and )extra == "[^"]*"$')


def _requirement(pin: Pin) -> str:
    spec = f"=={pin.version}" if pin.version is not None else (pin.specifier or "")
    if spec.startswith("==="):
        spec = ""
    if pin.source and "://" in pin.source:
        return f"{pin.name} @ {pin.source}"
    marker = _IN_EXTRA.sub("", pin.marker or "")
    return pin.name + spec + (f"; {marker}" if marker else "")


def resolve(lock: Lock) -> Lock:
    """The lock with every package pinned; a lock that pins everything comes back as it is."""
    if not lock.unpinned():
        return lock
    with tempfile.TemporaryDirectory(prefix="auditor-resolve-") as scratch:
        source = Path(lock.path).resolve()
        if lock.format != REQUIREMENTS_FORMAT:
            source = Path(scratch, "requirements.in")
            source.write_text("\n".join(_requirement(p) for p in lock.pins) + "\n", "utf-8")
        output = Path(scratch, "resolved.txt")
        command = [
            sys.executable,
            "-m",
            "piptools",
            "compile",
            "--quiet",
            "--no-header",
            "--no-annotate",
            "--strip-extras",
            "--output-file",
            str(output),
            str(source),
        ]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=TIMEOUT, cwd=scratch, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LockfileError(f"pip-compile could not run: {exc}", lock.path) from exc
        if done.returncode != 0 or not output.is_file():
            reason = next(
                (ln for ln in reversed(done.stderr.splitlines()) if ln.strip()), "no output"
            )
            raise LockfileError(f"pip-compile could not resolve it: {reason.strip()}", lock.path)
        resolved = parse_requirements(output, output.read_text("utf-8"))
    python = platform.python_version()
    versions = {p.name: p.version for p in resolved.pins}
    notes = tuple(
        f"{p.name}: resolved {p.specifier or 'any version'} to {versions[p.name]} with pip-compile "
        f"for Python {python} on {sys.platform}"
        for p in lock.unpinned()
        if versions.get(p.name) is not None
    )
    pins = tuple(Pin(p.name, p.version, p.marker, p.source, p.groups, None) for p in resolved.pins)
    return Lock(
        path=lock.path, format=lock.format, pins=pins, python=python, notes=lock.notes + notes
    )
