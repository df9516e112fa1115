"""Compatibility problems a torch bump brings with it, beyond code: companions built for another
torch, a Python the new torch has no wheels for, numpy 2 under a torch built against numpy 1,
a CUDA build that changes or does not match, and inputs that do not pin torch at all."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName
from packaging.version import Version

from auditor.knowledge.entry import SpecChange, release
from auditor.lockfiles.changes import PackageChange, Selection
from auditor.lockfiles.interface import TORCH_FAMILY
from auditor.lockfiles.variants import Grid, extras_named
from auditor.lockfiles.wheels import wheel_changes
from auditor.models import EnvironmentFinding, Lock, Pin

# The torchvision / torchaudio / torchtext release made for each torch release. Sources:
# https://github.com/pytorch/vision#installation (compatibility table),
# https://pytorch.org/audio/main/installation.html#compatibility-matrix,
# https://github.com/pytorch/text#installation (torchtext stopped at 0.18, for torch 2.3).
# From 2.10 on, the wheels' own Requires-Dist on PyPI: torchvision 0.25.0 `torch==2.10.0`, 0.26.0
# `==2.11.0`, 0.27.x `==2.12.x`, 0.28.0 `==2.13.0`, 0.29.0 `==2.14.0` and 0.29.1/0.29.2
# `>=2.14.0` (so 0.29 pairs with 2.15 too); torchaudio 2.10.0 `torch==2.10.0` and 2.11.1
# `torch>=2.11`, its last release (none for 2.12 or later, so 2.11 pairs with them).
# None: no release of that companion exists for this torch.
COMPANIONS: dict[str, dict[str, str | None]] = {
    "1.8": {"torchvision": "0.9", "torchaudio": "0.8", "torchtext": "0.9"},
    "1.9": {"torchvision": "0.10", "torchaudio": "0.9", "torchtext": "0.10"},
    "1.10": {"torchvision": "0.11", "torchaudio": "0.10", "torchtext": "0.11"},
    "1.11": {"torchvision": "0.12", "torchaudio": "0.11", "torchtext": "0.12"},
    "1.12": {"torchvision": "0.13", "torchaudio": "0.12", "torchtext": "0.13"},
    "1.13": {"torchvision": "0.14", "torchaudio": "0.13", "torchtext": "0.14"},
    "2.0": {"torchvision": "0.15", "torchaudio": "2.0", "torchtext": "0.15"},
    "2.1": {"torchvision": "0.16", "torchaudio": "2.1", "torchtext": "0.16"},
    "2.2": {"torchvision": "0.17", "torchaudio": "2.2", "torchtext": "0.17"},
    "2.3": {"torchvision": "0.18", "torchaudio": "2.3", "torchtext": "0.18"},
    "2.4": {"torchvision": "0.19", "torchaudio": "2.4", "torchtext": None},
    "2.5": {"torchvision": "0.20", "torchaudio": "2.5", "torchtext": None},
    "2.6": {"torchvision": "0.21", "torchaudio": "2.6", "torchtext": None},
    "2.7": {"torchvision": "0.22", "torchaudio": "2.7", "torchtext": None},
    "2.8": {"torchvision": "0.23", "torchaudio": "2.8", "torchtext": None},
    "2.9": {"torchvision": "0.24", "torchaudio": "2.9", "torchtext": None},
    "2.10": {"torchvision": "0.25", "torchaudio": "2.10", "torchtext": None},
    "2.11": {"torchvision": "0.26", "torchaudio": "2.11", "torchtext": None},
    "2.12": {"torchvision": "0.27", "torchaudio": "2.11", "torchtext": None},
    "2.13": {"torchvision": "0.28", "torchaudio": "2.11", "torchtext": None},
    "2.14": {"torchvision": "0.29", "torchaudio": "2.11", "torchtext": None},
    "2.15": {"torchvision": "0.29", "torchaudio": "2.11", "torchtext": None},
}
# numpy 2 support arrived in torch 2.3: earlier wheels were built against numpy 1's ABI.
NUMPY2_TORCH = Version("2.3")

_CUDA_BUILD = re.compile(r"cuda_?(\d+)(?:\.(\d+))?")


def minor(version: Version) -> str:
    return f"{version.major}.{version.minor}"


def variant(pin: Pin, companions: Iterable[Pin] = ()) -> str | None:
    """The accelerator build: `cu118`, `cpu`, `rocm5.6`, from the local label, the conda build
    string, or a conda selector package (`pytorch-cuda=11.8`, `cpuonly`, `cudatoolkit=11.3`)."""
    if pin.version is not None and pin.version.local:
        return str(pin.version.local)
    if pin.build:
        found = _CUDA_BUILD.search(pin.build)
        if found:
            return "cu" + found.group(1) + (found.group(2) or "")
        if "cpu" in pin.build:
            return "cpu"
    for other in companions:
        if other.name == "cpuonly":
            return "cpu"
        if (
            other.name in ("pytorch-cuda", "cudatoolkit", "cuda-version")
            and other.version is not None
        ):
            return f"cu{other.version.major}{other.version.minor}"
    return None


_NVIDIA_SUFFIX = re.compile(r"nvidia-.+-cu(\d+)")
_CUDA_PACKAGES = re.compile(r"nvidia-[a-z-]+|cuda-toolkit")


def cuda_major(pin: Pin, pins: Iterable[Pin]) -> tuple[int, str] | None:
    """The CUDA major a torch pin is built for, and what tells it: its build (`cu121`), or the
    CUDA wheels it depends on (`nvidia-cublas-cu12`; `nvidia-cublas 13.1.0.3` or `cuda-toolkit
    13.0.2`, whose versions are CUDA's)."""
    label = variant(pin, pins)
    if label and label.startswith("cu") and label[2:].isdigit() and len(label) > 3:
        return int(label[2:-1]), label
    versions = {p.name: p.version for p in pins if p.version is not None}
    for name in sorted(
        pin.requires, key=lambda name: (not name.startswith("nvidia-cuda-runtime"), name)
    ):
        suffixed, version = _NVIDIA_SUFFIX.fullmatch(name), versions.get(name)
        if suffixed:
            return int(suffixed.group(1)), name
        if _CUDA_PACKAGES.fullmatch(name) and version is not None and version.major >= 10:
            return version.major, f"{name} {version}"
    return None


def _describe(label: str) -> str:
    if label == "cpu":
        return "a CPU-only build"
    if label.startswith("cu") and label[2:].isdigit():
        return f"a CUDA {label[2:-1]}.{label[-1]} build ({label})"
    return f"a {label} build"


def where(pin: Pin, grid: Grid) -> str:
    """` [linux x86_64, extra rocm]`: the installs that get the pin, when not all of them."""
    name = grid.name(grid.cover(pin))
    return f" [{name}]" if name else ""


def beside(pins: list[Pin], name: str, anchor: Pin, grid: Grid) -> list[Pin]:
    """`name`'s pins installed together with `anchor` in some install: never a pin of another
    platform, of a conflicting extra or of another Python."""
    shared = grid.cover(anchor)
    return [p for p in pins if p.name == name and p.version is not None and grid.cover(p) & shared]


def _companions(torch: Pin, pins: list[Pin], grid: Grid) -> list[EnvironmentFinding]:
    assert torch.version is not None
    expected = COMPANIONS.get(minor(torch.version))
    if expected is None:
        return []
    findings = []
    for name, wanted in expected.items():
        for pin in beside(pins, name, torch, grid):
            findings += _companion(torch, pin, name, wanted, grid)
    return findings


def _companion(
    torch: Pin, pin: Pin, name: str, wanted: str | None, grid: Grid
) -> list[EnvironmentFinding]:
    assert torch.version is not None and pin.version is not None
    if wanted is None:
        message = (
            f"{name} {pin.version} has no release for torch {torch.version}{where(torch, grid)}: "
            f"its last release (0.18) was built for torch 2.3"
        )
    elif minor(pin.version) != wanted:
        message = (
            f"{name} {pin.version} was built for another torch than {torch.version}{where(torch, grid)}: "
            f"torch {minor(torch.version)} pairs with {name} {wanted}"
        )
    else:
        return []
    return [EnvironmentFinding("companion-mismatch", "high", message, name, line=pin.line)]


def _python_floor(text: str | None) -> str | None:
    if not text:
        return None
    if re.fullmatch(r"\d+\.\d+(\.\d+)?", text.strip()):
        return text.strip()
    found = re.search(r"(?:>=|\^|~=|~|==)\s*(\d+\.\d+)", text)
    return found.group(1) if found else None


def _python_support(
    torch: Pin,
    python: str,
    origin: str,
    knowledge: tuple[SpecChange, ...],
    selection: Selection,
    grid: Grid,
) -> list[EnvironmentFinding]:
    """Entries about wheels (those with `requires_python`) say from which torch release the
    Pythons in their `python` lose their wheels (kind python-support) or gain them (kind added).

    The direction is the kind's, never read from `requires_python`: that is the release's
    metadata, which can still admit a Python it ships no wheel for (2.5.0 says >=3.8.0 and has
    no cp38 wheel)."""
    assert torch.version is not None
    env = Selection(python, selection.platform).marker_environment()
    if torch.marker and not any(
        _holds(torch.marker, {**env, "extra": e}) for e in ("", *extras_named(torch.marker))
    ):
        return []  # this pin is not the one that Python installs, with or without an extra
    findings = []
    for entry in knowledge:
        if (
            entry.kind not in ("python-support", "added")
            or entry.package != "torch"
            or entry.requires_python is None
            or entry.python is None  # an entry for every Python says nothing about one's wheels
            or not entry.python.contains(python, prereleases=True)
        ):
            continue
        if entry.platform and (selection.platform is None or not _holds(entry.platform, env)):
            continue
        dropped = entry.kind == "python-support"
        if entry.active(torch.version) == dropped:
            findings.append(
                EnvironmentFinding(
                    "python-unsupported",
                    entry.severity,
                    f"Python {python} ({origin}) with torch {torch.version}{where(torch, grid)}: "
                    f"{entry.title} ({entry.id})",
                    "torch",
                    line=torch.line,
                )
            )
    return findings


def _holds(marker: str, env: dict[str, str]) -> bool:
    try:
        return Marker(marker).evaluate(env)
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return True


def _numpy(torch: Pin, pins: list[Pin], grid: Grid) -> list[EnvironmentFinding]:
    assert torch.version is not None
    if release(torch.version) >= NUMPY2_TORCH:
        return []
    return [
        EnvironmentFinding(
            "numpy2-with-old-torch",
            "high",
            f"numpy {numpy.version} with torch {torch.version}{where(torch, grid)}: torch before 2.3 is "
            f"built against numpy 1 and fails to import or convert arrays under numpy 2",
            "numpy",
            line=numpy.line,
        )
        for numpy in beside(pins, "numpy", torch, grid)
        if numpy.version is not None and numpy.version.major >= 2
    ]


def _cuda(
    change: PackageChange,
    old_pins: list[Pin],
    new_pins: list[Pin],
    grid: Grid,
    knowledge: tuple[SpecChange, ...],
) -> list[EnvironmentFinding]:
    """A torch whose accelerator build changes: a new CUDA major (from the local label, or from
    the nvidia-* wheels it depends on) is high, any other change of build medium."""
    old, new = change.old, change.new
    if old is None or new is None:
        return []
    named = f"torch {old.version} -> {new.version}" + (
        f" [{change.transition.variant}]" if change.transition.variant else ""
    )
    before, after = cuda_major(old, old_pins), cuda_major(new, new_pins)
    if before and after and before[0] != after[0]:
        # the entries about the default wheel's dependencies, where the lock shows those
        from_wheels = after[1].startswith(("nvidia-", "cuda-toolkit"))
        cited = [
            e.id
            for e in knowledge
            if from_wheels
            and e.package == "torch"
            and e.evidence == "metadata"
            and e.crossed_by(change.transition)
        ]
        return [
            EnvironmentFinding(
                "cuda-major-changed",
                "high",
                f"{named} moves from CUDA {before[0]} to CUDA {after[0]} ({before[1]} -> {after[1]}): the "
                f"machines that run it need an NVIDIA driver for CUDA {after[0]}, and packages built for "
                f"CUDA {before[0]} clash with it" + "".join(f" ({i})" for i in cited),
                "torch",
                line=new.line,
                change=cited[0] if cited else None,
            )
        ]
    old_label, new_label = variant(old, old_pins), variant(new, new_pins)
    if old_label is None or new_label is None or old_label == new_label:
        return []
    return [
        EnvironmentFinding(
            "cuda-build-changed",
            "medium",
            f"torch{where(new, grid)} moves from {_describe(old_label)} to {_describe(new_label)}: the "
            f"machines that run it need a matching driver and runtime",
            "torch",
            line=new.line,
        )
    ]


def _cuda_mismatch(torch: Pin, pins: list[Pin], grid: Grid) -> list[EnvironmentFinding]:
    have = variant(torch, pins)
    findings = []
    for name in ("torchvision", "torchaudio"):
        for pin in beside(pins, name, torch, grid):
            other = variant(pin)
            if have and other and other != have:
                findings.append(
                    EnvironmentFinding(
                        "cuda-build-mismatch",
                        "high",
                        f"{name} {pin.version} is {_describe(other)} but torch {torch.version}{where(torch, grid)} "
                        f"is {_describe(have)}",
                        name,
                        line=pin.line,
                    )
                )
    return findings


def _removed(change: PackageChange, new: Lock) -> list[EnvironmentFinding]:
    """torch gone from the new lock: code that imports it no longer starts. An audit of the
    project keeps this only where the project imports torch (`pipeline.audit`)."""
    t = change.transition
    if t.direction != "removed" or change.old is None:
        return []
    installs = f" for {t.variant}" if t.variant else ""
    return [
        EnvironmentFinding(
            "package-removed",
            "high",
            f"the new lock no longer installs torch{installs} (it had {t.old}): code that imports torch fails there",
            "torch",
            path=new.path,
        )
    ]


def _unpinned(lock: Lock, before: bool = False) -> list[EnvironmentFinding]:
    """A torch-family package the lock names without pinning it. On the new side it fails the
    check: the bump leaves what gets installed open. On the old side it is listed, low, and does
    not gate: the start of the move is not known (the transition's note says what was not
    checked, so the verdict is not green), and a bump that pins it fixes it."""
    findings = []
    for pin in lock.pins:
        if (
            pin.name in TORCH_FAMILY[:4]
            and pin.version is None
            and not (pin.specifier or "").startswith("===")
        ):
            asked = f" (it asks for {pin.specifier})" if pin.specifier else ""
            findings.append(
                EnvironmentFinding(
                    "not-locked",
                    "low" if before else "medium",
                    f"{lock.path} does not pin {pin.name}{asked}"
                    + (
                        " before the bump, so what it installed is not known"
                        if before
                        else ": it is not a lock"
                    )
                    + "; pass --resolve to resolve it with pip-compile",
                    pin.name,
                    gates=not before,
                )
            )
    return findings


def check(
    old: Lock,
    new: Lock,
    old_pins: list[Pin],
    new_pins: list[Pin],
    changes: list[PackageChange],
    selection: Selection,
    knowledge: tuple[SpecChange, ...],
    grid: Grid,
) -> list[EnvironmentFinding]:
    findings = _unpinned(old, before=True) + _unpinned(new)
    relevant = {c.transition.package for c in changes} & {
        *TORCH_FAMILY,
        "numpy",
        "pytorch-cuda",
        "python",
    }
    if not relevant:
        return findings
    python, origin = selection.python, "--python-version"
    if python is None:
        python, origin = _python_floor(new.python), f"the Python {new.path} is locked for"
    for torch in (p for p in new_pins if p.name == "torch" and p.version is not None):
        findings += _companions(torch, new_pins, grid)
        findings += _numpy(torch, new_pins, grid)
        findings += _cuda_mismatch(torch, new_pins, grid)
        if python:
            findings += _python_support(torch, python, origin, knowledge, selection, grid)
    for change in changes:
        if change.new is not None and grid.unreached(change.new):
            continue  # nothing installs it: its wheels and builds concern no machine
        if change.transition.package == "torch":
            findings += _cuda(change, old_pins, new_pins, grid, knowledge)
            findings += _removed(change, new)
        if change.transition.package in TORCH_FAMILY:
            findings += wheel_changes(change, new)
    # a finding about a line of the new lock names the lock
    findings = [
        replace(f, path=new.path) if f.line is not None and f.path is None else f for f in findings
    ]
    unique = dict.fromkeys(findings)
    return sorted(
        unique, key=lambda f: (-["low", "medium", "high"].index(f.severity), f.kind, f.message)
    )
