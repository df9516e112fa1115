"""Probe environments: one virtual environment per (package version, Python), built on demand.

uv builds them (4.9 s for a cold torch against 26 s with pip; a second environment from uv's
warm cache costs well under a second and a few MB, because uv hardlinks from its cache), with
`--compile-bytecode` (without .pyc files `import torch` takes twice as long). Without uv, venv
and pip do the same job more slowly.

Each requirement set is resolved first (`uv pip compile`, or pip's `--dry-run --report`), which
answers cheaply whether a wheel exists for an interpreter and whether it would pull a CUDA build
(nvidia-* wheels, several GB) before anything is downloaded. An environment is complete once its
`auditor-env.json` is written (whole, by a rename); an incomplete one is removed and built again.

Several runs share the cache, so an environment is never removed while one of them probes in
it: each environment has a lock file, held shared from the moment a run takes the environment
until it lets go of its `Provisioner` (after its probes), and exclusive to build or remove it.
Requirements beyond the package and its companions (a probe's `requires`) get a directory of
their own, so a run that wants other requirements builds beside an environment in use instead
of replacing it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from auditor.cachefiles import write_whole
from auditor.errors import ProbeError
from auditor.probe.interpreters import Interpreter, query
from auditor.probe.sources import Sources
from auditor.progress import SILENT, Reporter

MARKER_FILE = "auditor-env.json"
INSTALL_TIMEOUT = 3600.0  # a cold torch 1.x is a 740 MB download
PIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*==\S+")
CUDA_PACKAGES = re.compile(r"^(nvidia-|cuda-bindings==|cuda-toolkit==|triton==|pytorch-triton)")

# What a package's probes need besides the package, by package and version range.
COMPANIONS: dict[str, tuple[tuple[str, str], ...]] = {
    # without numpy `import torch` warns "Failed to initialize NumPy"; torch before 2.3 was built
    # against numpy 1.x and cannot use numpy 2
    "torch": (
        ("<2.3", "numpy<2"),
        (">=2.3", "numpy"),
        # torch/torch_version.py imports pkg_resources: at `import torch` in 1.10 (fresh uv and
        # Python 3.12 venvs have no setuptools), on a version comparison in 1.11 to 2.1 (when
        # `packaging` is missing, from 2.0). setuptools 67 and later warn when pkg_resources is
        # imported, which a probe would see.
        (">=1.10,<2.2", "setuptools<67"),
    ),
}


class Unavailable(Exception):
    """This version cannot be provisioned here (no wheel, CUDA only, ...): a skip, not a failure."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Environment:
    python: str  # the interpreter to run probes with
    python_version: str
    packages: dict[str, str | None]  # installed versions, local labels kept (2.13.0+cpu)
    root: Path | None = None
    reused: bool = False
    seconds: float = 0.0  # time spent provisioning


@dataclass(frozen=True, slots=True)
class Resolution:
    interpreter: Interpreter
    pins: tuple[str, ...]  # name==version lines

    def versions(self) -> dict[str, str]:
        return dict(tuple(line.split("==", 1)) for line in self.pins)  # type: ignore[misc]


def companions(package: str, version: str) -> tuple[str, ...]:
    release = Version(Version(version).public)
    return tuple(req for spec, req in COMPANIONS.get(package, ()) if release in SpecifierSet(spec))


def find_uv() -> str | None:
    try:
        from uv import find_uv_bin  # optional: the `uv` package may not be installed

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")


def env_python(root: Path) -> Path:
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def disk_usage(root: Path) -> tuple[int, int]:
    """Bytes an environment occupies: all its files, and those not hardlinked from elsewhere."""
    total = unique = 0
    seen: set[tuple[int, int]] = set()
    for directory, _, files in os.walk(root):
        for name in files:
            try:
                info = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            size = getattr(info, "st_blocks", 0) * 512 or info.st_size
            total += size
            if info.st_nlink == 1:
                unique += size
    return total, unique


def _short(stderr: str) -> str:
    """The line of an installer's error that says why."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    for prefix in ("hint:", "cause:", "error:", "ERROR:"):
        for line in lines:
            if line.startswith(prefix):
                text = line[len(prefix) :].strip()
                if prefix == "cause:" and "Because" in text:
                    text = text.split(", we can conclude")[0]
                return text[:400]
    return (lines[-1] if lines else "no output")[:400]


def describe(python: str, packages: Sequence[str]) -> Environment:
    """An existing environment (`--env-old/--env-new`): its interpreter and installed versions."""
    code = (
        "import json, os, re, sys\n"
        "try: from importlib import metadata\n"
        "except ImportError:  # Python 3.7: the backport, else the dist-info folders\n"
        "    try: import importlib_metadata as metadata\n"
        "    except ImportError: metadata = None\n"
        "found = {}\n"
        "if metadata is None:\n"
        "    norm = lambda n: re.sub(r'[-_.]+', '-', n).lower()\n"
        "    seen = {}\n"
        "    for entry in sys.path:\n"
        "        try: folders = sorted(os.listdir(entry or '.'))\n"
        "        except OSError: continue\n"
        "        for f in folders:\n"
        "            if f.endswith('.dist-info'):\n"
        "                project, _, version = f[:-len('.dist-info')].partition('-')\n"
        "                seen.setdefault(norm(project), version)\n"
        "    found = {name: seen.get(norm(name)) for name in sys.argv[1:]}\n"
        "    found.update({k: v for k, v in seen.items() if k.startswith('nvidia-') and k not in found})\n"
        "else:\n"
        "    for name in sys.argv[1:]:\n"
        "        try: found[name] = metadata.version(name)\n"
        "        except metadata.PackageNotFoundError: found[name] = None\n"
        "    for dist in metadata.distributions():  # a CUDA build's libraries: it needs more memory\n"
        "        name = (dist.metadata['Name'] or '').lower().replace('_', '-')\n"
        "        if name.startswith('nvidia-'): found.setdefault(name, dist.version)\n"
        "print(json.dumps({'python': '%d.%d.%d' % sys.version_info[:3], 'packages': found}))\n"
    )
    try:
        done = subprocess.run(
            [python, "-I", "-c", code, *packages],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProbeError(f"no such interpreter: {python}") from exc
    if done.returncode != 0:
        raise ProbeError(f"{python}: cannot run: {_short(done.stderr)}")
    try:
        data = json.loads(done.stdout.strip().splitlines()[-1])
        return Environment(python, str(data["python"]), dict(data["packages"]))
    except (IndexError, ValueError, KeyError, TypeError) as exc:
        reply = done.stdout.strip()[:80]
        raise ProbeError(
            f"{python}: not a Python interpreter (it replied {reply!r} to a Python script)"
        ) from exc


def existing(path: str, packages: Sequence[str]) -> Environment:
    """`--env-old PATH`: a virtual environment's directory or an interpreter."""
    target = Path(path).expanduser()
    if target.is_dir():
        python = env_python(target)
        if not python.exists():
            raise ProbeError(
                f"{target}: not a Python environment (no {python.relative_to(target)})"
            )
        return describe(str(python), packages)
    if not target.exists():
        raise ProbeError(f"{target}: no such environment or interpreter")
    return describe(str(target), packages)


@dataclass
class Provisioner:
    """Builds and reuses environments under `root` (the cache's `envs/` directory)."""

    root: Path
    sources: Sources
    installer: str = "auto"  # auto, uv or pip
    allow_cuda: bool = False
    reporter: Reporter = SILENT
    timeout: float = INSTALL_TIMEOUT
    uv: str | None = field(default=None, init=False)
    _held: dict[Path, IO[str]] = field(default_factory=dict, init=False, repr=False)  # shared locks

    def __post_init__(self) -> None:
        if self.installer in ("auto", "uv"):
            self.uv = find_uv()
            if self.uv is None and self.installer == "uv":
                raise ProbeError(
                    "uv is not installed (pip install uv), and --installer uv asks for it"
                )

    def close(self) -> None:
        """Let go of the environments this provisioner handed out: others may rebuild them now."""
        for handle in self._held.values():
            handle.close()  # closing drops the lock
        self._held.clear()

    # --- public ------------------------------------------------------------------------------

    def provision(
        self, package: str, version: str, requires: Sequence[str], pythons: Sequence[Interpreter]
    ) -> Environment:
        """An environment with package==version and `requires`, on the first Python that has wheels."""
        package = canonicalize_name(package)
        version = str(Version(version))
        wanted = self._requirements(package, version, requires)
        for interpreter in pythons:
            found = self._complete(package, version, interpreter, wanted)
            if found is not None:
                return found
        resolved = self.sources.resolved()
        sources, note = resolved.for_package(package)
        unreachable = resolved.torch_index if note else None
        if note:  # said now: it may be why nothing below can be installed
            self.reporter.note(note)
        problems: list[tuple[Interpreter, str]] = []
        for interpreter in pythons:
            label = f"{package} {version} (Python {interpreter.minor})"
            start = time.monotonic()
            with self.reporter.task(f"resolving {label}"):
                try:
                    resolution = self._resolve(wanted, interpreter, sources)
                except Unavailable as exc:
                    problems.append((interpreter, exc.reason))
                    continue
            cuda = sorted(
                (pin for pin in resolution.pins if CUDA_PACKAGES.match(pin)),
                key=lambda pin: not pin.startswith("nvidia-"),
            )
            if cuda and not self.allow_cuda:
                problems.append((interpreter, _cuda_only(cuda, unreachable)))
                continue
            with self.reporter.task(f"installing {label}"):
                try:
                    environment = self._build(package, version, resolution, wanted, sources)
                except Unavailable as exc:  # resolved from cached metadata, but a wheel is missing
                    problems.append((interpreter, exc.reason))
                    continue
            return _replace_env(environment, seconds=time.monotonic() - start)
        raise Unavailable(_summary(package, version, problems, pythons))

    # --- steps ---------------------------------------------------------------------------------

    def _requirements(self, package: str, version: str, requires: Sequence[str]) -> tuple[str, ...]:
        extra = {*companions(package, version)}
        named = {canonicalize_name(Requirement(r).name) for r in extra}
        for raw in requires:
            try:
                name = canonicalize_name(Requirement(raw).name)
            except InvalidRequirement as exc:
                raise ProbeError(f"invalid probe requirement {raw!r}") from exc
            if name != package and name not in named:
                extra.add(raw)
        return (f"{package}=={version}", *sorted(extra))

    def directory(
        self, package: str, version: str, interpreter: Interpreter, wanted: Sequence[str] = ()
    ) -> Path:
        """`torch-2.13.0-py3.11`; with requirements beyond the package and its companions, a
        suffix naming them, so that environments of other requirements never share a directory."""
        name = f"{package}-{version}-py{interpreter.minor}"
        extra = sorted(set(wanted) - {f"{package}=={version}", *companions(package, version)})
        if extra:
            name += "-" + hashlib.sha256("\n".join(extra).encode()).hexdigest()[:10]
        return self.root / name

    def _complete(
        self, package: str, version: str, interpreter: Interpreter, wanted: Sequence[str]
    ) -> Environment | None:
        """The complete environment for `wanted`, taken for this run (shared lock), or None."""
        root = self.directory(package, version, interpreter, wanted)
        if root in self._held:
            return self._read(root, wanted)
        if not (root / MARKER_FILE).exists():
            return None
        try:
            handle = _lock(self.root, root, exclusive=False)  # waits while another run builds it
        except OSError as exc:  # a cache this run may read but not write
            found = self._read(root, wanted)
            if found is not None:
                self.reporter.note(
                    f"{root.name}: used without its lock ({exc.strerror or exc}): a run that may write "
                    f"the cache could rebuild it meanwhile"
                )
            return found
        found = self._read(root, wanted)
        if found is None:
            handle.close()
        else:
            self._held[root] = handle
        return found

    def _read(self, root: Path, wanted: Sequence[str]) -> Environment | None:
        try:
            data = json.loads((root / MARKER_FILE).read_text("utf-8"))
            requirements, python_version, packages = (
                data["requirements"],
                data["python_version"],
                data["packages"],
            )
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return None  # missing, or written by something else: build it again
        if not isinstance(requirements, list) or not isinstance(packages, dict):
            return None
        if not set(wanted) <= set(map(str, requirements)) or not env_python(root).exists():
            return None
        return Environment(str(env_python(root)), str(python_version), packages, root, reused=True)

    def _resolve(
        self, wanted: Sequence[str], interpreter: Interpreter, sources: Sources
    ) -> Resolution:
        if self.uv is not None:
            done = self._run(
                [
                    self.uv,
                    "pip",
                    "compile",
                    "-",
                    "--python",
                    interpreter.path,
                    "--no-header",
                    "--no-annotate",
                    "--quiet",
                    *sources.uv_args(),
                ],
                stdin="\n".join(wanted) + "\n",
            )
            if done.returncode != 0:
                raise Unavailable(_short(done.stderr))
            pins = tuple(
                line.split(";")[0].strip()
                for line in done.stdout.splitlines()
                if line.strip() and not line.lstrip().startswith(("#", "-"))
            )
            for pin in pins:
                if not PIN.fullmatch(pin):  # not the user's input: the installer misbehaves
                    raise RuntimeError(
                        f"{self.uv} pip compile replied with a line that is not a pin: {pin[:80]!r}"
                    )
            return Resolution(interpreter, pins)
        return self._resolve_pip(wanted, interpreter, sources)

    def _resolve_pip(
        self, wanted: Sequence[str], interpreter: Interpreter, sources: Sources
    ) -> Resolution:
        with tempfile.TemporaryDirectory(prefix="auditor-resolve-") as tmp:
            report = Path(tmp, "report.json")
            done = self._run(
                [
                    interpreter.path,
                    "-m",
                    "pip",
                    "install",
                    "--dry-run",
                    "--ignore-installed",
                    "--quiet",
                    "--report",
                    str(report),
                    *sources.pip_args(),
                    *wanted,
                ]
            )
            if done.returncode != 0:
                raise Unavailable(_short(done.stderr))
            data = json.loads(report.read_text("utf-8"))
        pins = tuple(
            f"{canonicalize_name(item['metadata']['name'])}=={item['metadata']['version']}"
            for item in data.get("install", ())
        )
        return Resolution(interpreter, tuple(sorted(pins)))

    def _build(
        self,
        package: str,
        version: str,
        resolution: Resolution,
        wanted: Sequence[str],
        sources: Sources,
    ) -> Environment:
        interpreter = resolution.interpreter
        root = self.directory(package, version, interpreter, wanted)
        stale = self._held.pop(root, None)  # an environment this run took but found broken
        if stale is not None:
            stale.close()
        try:
            handle = _lock(self.root, root, exclusive=True)  # waits until no run probes in it
        except OSError as exc:
            raise Unavailable(
                f"environments cannot be built in {self.root} ({exc.strerror or exc})"
            ) from exc
        try:
            found = self._read(root, wanted)
            if found is not None:  # another process built it meanwhile
                _share(handle)
                self._held[root] = handle
                return found
            if root.exists():
                shutil.rmtree(root)
            try:
                self._install(root, resolution, sources)
            except BaseException:
                shutil.rmtree(root, ignore_errors=True)
                raise
            described = query(str(env_python(root)))
            versions = resolution.versions()
            data = {
                "package": package,
                "version": version,
                "python": interpreter.path,
                "python_version": described.version if described else interpreter.version,
                "requirements": list(wanted),
                "pins": list(resolution.pins),
                "packages": {canonicalize_name(k): v for k, v in versions.items()},
                "installer": "uv" if self.uv else "pip",
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            write_whole(root / MARKER_FILE, json.dumps(data, indent=2, sort_keys=True).encode())
        except BaseException:
            handle.close()
            raise
        _share(handle)  # built: others may use it too, and nobody may remove it while this run does
        self._held[root] = handle
        return Environment(
            str(env_python(root)),
            str(data["python_version"]),
            data["packages"],  # type: ignore[arg-type]
            root,
        )

    def _install(self, root: Path, resolution: Resolution, sources: Sources) -> None:
        interpreter = resolution.interpreter
        with tempfile.TemporaryDirectory(prefix="auditor-install-") as tmp:
            pins = Path(tmp, "requirements.txt")
            pins.write_text("\n".join(resolution.pins) + "\n", "utf-8")
            if self.uv is not None:
                steps = [
                    [
                        self.uv,
                        "venv",
                        "--quiet",
                        "--no-project",
                        "--python",
                        interpreter.path,
                        str(root),
                    ],
                    [
                        self.uv,
                        "pip",
                        "sync",
                        "--quiet",
                        "--compile-bytecode",
                        "--python",
                        str(env_python(root)),
                        *sources.uv_args(),
                        str(pins),
                    ],
                ]
            else:
                steps = [
                    [interpreter.path, "-m", "venv", str(root)],
                    [
                        str(env_python(root)),
                        "-m",
                        "pip",
                        "install",
                        "--quiet",
                        "--no-deps",
                        *sources.pip_args(),
                        "-r",
                        str(pins),
                    ],
                ]
            for command in steps:
                done = self._run(command)
                if done.returncode != 0 and command[1:3] == ["pip", "sync"]:
                    # uv's cache is shared, and an entry removed behind uv's back breaks every
                    # install of that wheel: fall back to a cache of our own, beside the environments
                    private = ["--cache-dir", str(self.root.parent / "uv-cache")]
                    done = self._run([*command[:3], *private, *command[3:]])
                if done.returncode != 0:
                    raise Unavailable(f"installing failed: {_short(done.stderr)}")

    def _run(
        self, command: list[str], stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
        }
        try:
            return subprocess.run(
                command,
                input=stdin if stdin is not None else "",
                capture_output=True,
                text=True,
                timeout=self.timeout,
                check=False,
                env=env,
                cwd=self.root if self.root.is_dir() else None,
            )
        except subprocess.TimeoutExpired as exc:
            raise Unavailable(
                f"{Path(command[0]).name} took longer than {self.timeout:.0f} s"
            ) from exc
        except OSError as exc:
            raise ProbeError(f"cannot run {command[0]}: {exc.strerror or exc}") from exc


def _replace_env(environment: Environment, **changes: object) -> Environment:
    return replace(environment, **changes)  # type: ignore[arg-type]


def _cuda_only(cuda: Sequence[str], unreachable: str | None) -> str:
    """Why a resolution that pulls CUDA wheels is refused, and, when PyTorch's CPU index was left
    out for being `unreachable`, that this is the cause: it would have offered a CPU build."""
    names = [pin.split("==")[0] for pin in cuda]
    pulled = ", ".join(names[:2]) + (
        f" and {len(names) - 2} more CUDA wheels" if len(names) > 2 else ""
    )
    if unreachable:
        return (
            f"the CPU index {unreachable} is not reachable, and the other indexes offer only a CUDA "
            f"build (it pulls {pulled}, several GB); --allow-cuda accepts it, --torch-index names "
            "another CPU index"
        )
    return (
        f"only a CUDA build is available (it pulls {pulled}, several GB); --allow-cuda accepts it"
    )


def _summary(
    package: str,
    version: str,
    problems: list[tuple[Interpreter, str]],
    pythons: Sequence[Interpreter],
) -> str:
    if not pythons:
        return f"no Python interpreter to install {package} {version} into"
    reasons: dict[str, list[str]] = {}
    for interpreter, reason in problems:
        reasons.setdefault(reason, []).append(interpreter.minor)
    parts = [
        f"Python {', '.join(minors)}: {reason}" for reason, minors in list(reasons.items())[:3]
    ]
    return f"cannot install {package} {version}: " + "; ".join(parts)


def _lock(directory: Path, root: Path, exclusive: bool) -> IO[str]:
    """The lock of the environment at `root`, held until the returned file is closed: shared by
    the runs that probe in it, exclusive to the one that builds or removes it."""
    directory.mkdir(parents=True, exist_ok=True)
    handle = (directory / f".{root.name}.lock").open("a")
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    except BaseException:
        handle.close()
        raise
    return handle


def _share(handle: IO[str]) -> None:
    """An exclusive lock made shared (the build is done; the run keeps using the environment)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    fcntl.flock(handle, fcntl.LOCK_SH)
