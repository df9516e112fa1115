"""Variants: pins paired by the installs they cover, named briefly, checked only together with
the pins installed beside them; changes to the environment that a lock's own lines show."""

import json
from pathlib import Path

import pytest
from lockfixtures import LOCKS, read
from packaging.version import Version
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.lockfiles import diff_locks, read_lock
from auditor.lockfiles.variants import Grid, extra_label
from auditor.models import Lock, Pin, Transition

EXTRAS = ("uv/extras-old/uv.lock", "uv/extras-new/uv.lock")
CUDA13 = ("uv/cuda13-old/uv.lock", "uv/cuda13-new/uv.lock")


def moves(diff) -> list[tuple[str, str, str, str | None]]:
    return [(t.package, str(t.old), str(t.new), t.variant) for t in diff.packages]


def test_conflicting_extras_are_paired_by_variant_not_by_marker_text() -> None:
    diff = diff_locks(read(EXTRAS[0]), read(EXTRAS[1]))
    assert moves(diff)[:6] == [
        ("torch", "2.7.1", "2.12.0", "default"),
        ("torch", "2.7.1+cpu", "2.12.0+cpu", "extra cpu"),
        ("torch", "2.7.1+rocm6.3", "2.10.0+rocm7.1", "linux x86_64, extra rocm"),
        ("torchvision", "0.22.1+cpu", "0.27.0+cpu", "extra cpu"),
        ("torchvision", "0.22.1+rocm6.3", "0.25.0+rocm7.1", "linux x86_64, extra rocm"),
        ("numpy", "2.0.2", "2.2.6", "python < 3.10"),  # 2.2.6 stays 2.2.6 on Python 3.10 and later
    ]
    assert all(t.direction == "upgrade" for t in diff.transition("torch"))
    # the marker stays, in its own key; the name is short
    rocm = diff.transition("torch")[2]
    assert rocm.environment and "extra-6-myproj-rocm" in rocm.environment and len(rocm.environment) > 150


def test_pins_of_conflicting_extras_are_never_checked_against_each_other() -> None:
    diff = diff_locks(read(EXTRAS[0]), read(EXTRAS[1]))
    kinds = {e.kind for e in diff.environment}
    assert "cuda-build-mismatch" not in kinds and "companion-mismatch" not in kinds


def test_a_companion_mismatch_inside_one_extra_is_still_found(tmp_path: Path) -> None:
    text = (LOCKS / EXTRAS[1]).read_text().replace('version = "0.27.0+cpu"', 'version = "0.27.0+cu128"')
    text = text.replace("0.27.0%2Bcpu", "0.27.0%2Bcu128").replace('"torchvision", version = "0.27.0+cpu"', '"torchvision", version = "0.27.0+cu128"')
    (tmp_path / "uv.lock").write_text(text)
    diff = diff_locks(read(EXTRAS[0]), read_lock(tmp_path / "uv.lock"))
    (mismatch,) = [e for e in diff.environment if e.kind == "cuda-build-mismatch"]
    assert "torch 2.12.0+cpu [extra cpu]" in mismatch.message and mismatch.line is not None


def test_a_pin_only_an_extra_reaches_holds_only_with_that_extra() -> None:
    (vision,) = [p for p in read(EXTRAS[0]).pins if p.name == "torchvision" and p.version == Version("0.22.1+cpu")]
    assert vision.marker == 'extra == "extra-6-myproj-cpu"'
    (rocm,) = [p for p in read(EXTRAS[0]).pins if p.name == "torchvision" and p.version == Version("0.22.1+rocm6.3")]
    assert rocm.marker == '(platform_machine == "x86_64" and sys_platform == "linux") and extra == "extra-6-myproj-rocm"'
    filelock = [p for p in read(EXTRAS[0]).pins if p.name == "filelock"]
    assert filelock[0].marker is None  # torch depends on it whatever the extra


def test_uv_pins_keep_their_wheel_files_and_dependencies() -> None:
    (torch,) = [p for p in read(CUDA13[0]).pins if p.name == "torch"]
    assert len(torch.wheels) == 12 and "torch-2.10.0-cp310-cp310-win_amd64.whl" in torch.wheels
    assert torch.requires == ("filelock", "nvidia-cublas-cu12", "nvidia-cuda-runtime-cu12", "nvidia-cudnn-cu12")
    cpu = next(p for p in read(EXTRAS[1]).pins if p.version == Version("2.12.0+cpu"))
    assert "torch-2.12.0+cpu-cp314-cp314-win_amd64.whl" in cpu.wheels  # %2B read as +


@pytest.mark.parametrize(
    ("value", "label"),
    [("extra-6-myproj-cpu", "extra cpu"), ("extra-7-my-proj-cu128", "extra cu128"),
     ("group-6-myproj-dev", "group dev"), ("gpu", "extra gpu")],
)
def test_uv_spelled_extras_read_as_users_name_them(value: str, label: str) -> None:
    assert extra_label(value) == label


def pins(*rows: tuple[str, str | None, str | None]) -> Lock:
    return Lock("requirements.txt", "requirements.txt", tuple(Pin("torch", Version(v), m, platform=p) for v, m, p in rows))


@pytest.mark.parametrize(
    ("marker", "platform", "name"),
    [
        (None, "linux-64", "linux x86_64"),
        (None, "osx-arm64", "macOS arm64"),
        ('sys_platform == "darwin"', None, "macOS"),
        ('sys_platform == "linux" or sys_platform == "win32"', None, "linux and windows"),
        ('python_version < "3.10"', None, "python < 3.10"),
        ('python_version >= "3.12"', None, "python >= 3.12"),
        ('platform_machine == "aarch64" and python_version >= "3.11"', None, "linux aarch64, python >= 3.11"),
        ('platform_machine == "s390x"', None, "other platforms"),
        ('python_version >= "3.8"', None, None),  # every install
    ],
)
def test_variant_names(marker: str | None, platform: str | None, name: str | None) -> None:
    lock = pins(("2.0.0", marker, platform))
    grid = Grid((lock,))
    assert grid.name(grid.cover(lock.pins[0])) == name


def test_a_lock_for_several_pythons_names_the_python_ranges() -> None:
    old = Lock("a", "uv.lock", (Pin("torch", Version("2.4.1"), 'python_version < "3.10"'),
                                Pin("torch", Version("2.5.1"), 'python_version >= "3.10"')), python=">=3.9")
    new = Lock("b", "uv.lock", (Pin("torch", Version("2.4.1"), 'python_full_version < "3.10"'),
                                Pin("torch", Version("2.6.0"), 'python_full_version >= "3.10"')), python=">=3.9")
    assert moves(diff_locks(old, new)) == [("torch", "2.5.1", "2.6.0", "python >= 3.10")]


# --- changes to the environment ------------------------------------------------------------------


def test_cuda_13_wheels_of_the_default_index_are_a_finding_at_the_lock_line(kb: KnowledgeBase) -> None:
    diff = diff_locks(read(CUDA13[0]), read(CUDA13[1]), knowledge=kb.entries)
    (cuda,) = [e for e in diff.environment if e.kind == "cuda-major-changed"]
    assert cuda.severity == "high" and cuda.path.endswith("cuda13-new/uv.lock") and cuda.line == 48
    assert "from CUDA 12 to CUDA 13 (nvidia-cuda-runtime-cu12 -> nvidia-cuda-runtime 13.0.96)" in cuda.message
    assert cuda.change == "torch-default-wheel-cuda-13"


def test_a_cuda_major_move_of_the_local_label_is_high() -> None:
    old = Lock("old.txt", "requirements.txt", (Pin("torch", Version("2.5.1+cu121"), line=3),))
    new = Lock("new.txt", "requirements.txt", (Pin("torch", Version("2.9.0+cu130"), line=4),))
    (finding,) = diff_locks(old, new).environment
    assert (finding.kind, finding.severity, finding.path, finding.line) == ("cuda-major-changed", "high", "new.txt", 4)
    same_major = Lock("new.txt", "requirements.txt", (Pin("torch", Version("2.9.0+cu128"), line=4),))
    assert [e.kind for e in diff_locks(old, same_major).environment] == ["cuda-build-changed"]


def test_a_raised_glibc_baseline_is_a_finding() -> None:
    diff = diff_locks(read(CUDA13[0]), read(CUDA13[1]))
    (glibc,) = [e for e in diff.environment if e.kind == "glibc-baseline-raised"]
    assert glibc.severity == "medium" and glibc.line == 48
    assert "Linux x86_64 wheels need glibc 2.28 (manylinux_2_28), 2.10.0's glibc 2.17" in glibc.message


def test_raised_macos_baseline_and_python_wheels_that_disappear() -> None:
    diff = diff_locks(read(EXTRAS[0]), read(EXTRAS[1]))
    (macos,) = [e for e in diff.environment if e.kind == "macos-baseline-raised"]
    assert "torch 2.7.1 -> 2.12.0 [default]: macOS arm64 wheels need macOS 14.0, 2.7.1's macOS 11.0" in macos.message
    dropped = {(e.package, e.line, e.severity) for e in diff.environment if e.kind == "python-wheels-dropped"}
    assert ("torch", 98, "low") in dropped  # the new lock no longer admits Python 3.9 either
    assert len(dropped) == 5  # each torch and torchvision variant that moves


def test_python_wheels_that_disappear_where_the_lock_still_admits_that_python(tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text((LOCKS / EXTRAS[1]).read_text().replace('requires-python = ">=3.10"', 'requires-python = ">=3.9"'))
    diff = diff_locks(read(EXTRAS[0]), read_lock(tmp_path / "uv.lock"))
    default = next(e for e in diff.environment if e.kind == "python-wheels-dropped" and "[default]" in e.message)
    assert default.severity == "high" and "the lock still admits Python 3.9, where the install fails" in default.message


# --- through the command line --------------------------------------------------------------------


def compare(tmp_path: Path, old: str, new: str, *options: str) -> tuple[int, str]:
    (tmp_path / "project").mkdir(exist_ok=True)
    result = CliRunner().invoke(
        app, ["compare", str(LOCKS / old), str(LOCKS / new), "--project", str(tmp_path / "project"), "--no-cache", *options]
    )
    return result.exit_code, result.stdout


def test_json_transitions_name_the_variant_and_keep_the_marker(tmp_path: Path) -> None:
    code, out = compare(tmp_path, *EXTRAS, "--format", "json")
    document = json.loads(out)
    torch = [(t["from"], t["to"], t["variant"]) for t in document["transitions"] if t["package"] == "torch"]
    assert torch == [
        ("2.7.1", "2.12.0", "default"),
        ("2.7.1+cpu", "2.12.0+cpu", "extra cpu"),
        ("2.7.1+rocm6.3", "2.10.0+rocm7.1", "linux x86_64, extra rocm"),
    ]
    cuda = next(e for e in document["environment"] if e["kind"] == "cuda-major-changed")
    assert cuda["path"].endswith("extras-new/uv.lock") and cuda["line"] == 98 and cuda["change"] == "torch-default-wheel-cuda-13"
    assert code == 1


def test_markdown_names_variants_and_gives_no_green_check_over_lock_problems(tmp_path: Path) -> None:
    _, out = compare(tmp_path, *EXTRAS, "--format", "markdown")
    assert "extra-6-myproj" not in out and "**torch 2.7.1+rocm6.3 -> 2.10.0+rocm7.1** (linux x86\\_64, extra rocm)" in out
    assert "✅" not in out
    assert "| 🔴 high | torch | `" in out and "extras-new/uv.lock:98`: torch 2.7.1 -> 2.12.0 [default] moves from CUDA 12" in out.replace("\\", "")
    # the CUDA 13 entry is stated about the lock, not listed among changes without a call site
    unused = out.split("not used by this code")[1].split("</details>")[0]
    assert "torch-default-wheel-cuda-13" not in unused


def test_cuda_13_is_not_listed_as_without_a_call_site(tmp_path: Path) -> None:
    code, out = compare(tmp_path, *CUDA13)
    assert code == 1
    unused = out.split("no call site in this project:")[1].split("\n\n")[0]
    assert "torch-default-wheel-cuda-13" not in unused
    assert "cuda13-new/uv.lock:48: torch 2.10.0 -> 2.11.0 moves from CUDA 12 to CUDA 13" in out


@pytest.mark.parametrize(("source", "code"), [("import torch\n\nx = torch.ones(2)\n", 1), ("import numpy\n", 0)])
def test_torch_removed_while_the_project_imports_it(tmp_path: Path, source: str, code: int) -> None:
    (tmp_path / "old.txt").write_text("torch==2.7.1\nnumpy==2.2.6\n")
    (tmp_path / "new.txt").write_text("numpy==2.2.6\n")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "train.py").write_text(source)
    result = CliRunner().invoke(app, [
        "compare", str(tmp_path / "old.txt"), str(tmp_path / "new.txt"), "--project", str(tmp_path / "project"),
        "--no-cache", "--format", "json",
    ])
    assert result.exit_code == code, result.output
    document = json.loads(result.stdout)
    removed = [e for e in document["environment"] if e["kind"] == "package-removed"]
    if code:
        (finding,) = removed
        assert finding["severity"] == "high" and finding["path"].endswith("new.txt")
        assert finding["message"].endswith("the project imports it (train.py:1)")
    else:
        assert not removed and any("does not import torch" in n for n in document["notes"])


POETRY = """[[package]]
name = "torch"
version = "{version}"
description = "Tensors and Dynamic neural networks in Python with strong GPU acceleration"
optional = false
python-versions = ">=3.9.0"
groups = ["main"]
files = [
{files}
]

[package.dependencies]
filelock = "*"
{nvidia} = {{version = "{cuda}", markers = "platform_system == \\"Linux\\" and platform_machine == \\"x86_64\\""}}

[metadata]
lock-version = "2.1"
python-versions = ">=3.9"
content-hash = "5f3c1e0e3d6b6cbd1a1ef5d0f1b0b9a6e4f0c2d8f6a5b4c3d2e1f0a9b8c7d6e5"
"""


def poetry_lock(folder: Path, version: str, pythons: tuple[str, ...], nvidia: str, cuda: str) -> Lock:
    files = "\n".join(
        f'    {{file = "torch-{version}-cp{y}-cp{y}-manylinux_2_28_x86_64.whl", hash = "sha256:{y * 16}"}},'
        for y in pythons
    )
    folder.mkdir()
    (folder / "poetry.lock").write_text(POETRY.format(version=version, files=files, nvidia=nvidia, cuda=cuda))
    return read_lock(folder / "poetry.lock")


def test_poetry_lock_files_and_dependencies_show_the_same_changes(tmp_path: Path) -> None:
    old = poetry_lock(tmp_path / "old", "2.8.0", ("39", "310", "311"), "nvidia-cuda-runtime-cu12", "12.8.90")
    new = poetry_lock(tmp_path / "new", "2.9.0", ("310", "311"), "nvidia-cuda-runtime-cu13", "13.0.96")
    found = {(e.kind, e.line, e.severity) for e in diff_locks(old, new).environment}
    assert ("python-wheels-dropped", 1, "high") in found  # the lock still admits Python 3.9
    assert ("cuda-major-changed", 1, "high") in found


def test_a_move_past_the_horizon_names_its_variant_not_its_marker() -> None:
    from auditor.knowledge.horizon import beyond

    marker = " and ".join(f'extra != "extra-6-myproj-e{i}"' for i in range(40))  # uv writes such
    moved = Transition("torch", Version("2.7.1+rocm6.3"), Version("2.16.0+rocm7.1"), marker, variant="linux x86_64, extra rocm")
    (finding,), _ = beyond([moved], {"torch": Version("2.15.0")})
    assert finding.message.startswith("torch 2.7.1+rocm6.3 -> 2.16.0+rocm7.1 [linux x86_64, extra rocm]: not reviewed")
    assert "extra-6-myproj" not in finding.message


def test_text_reports_name_variants_not_markers(tmp_path: Path) -> None:
    _, out = compare(tmp_path, *EXTRAS)
    assert "extra-6-myproj" not in out
    assert "torch 2.7.1+rocm6.3 -> 2.10.0+rocm7.1 (upgrade) [linux x86_64, extra rocm]" in out


def test_pins_of_one_install_are_told_apart_by_their_groups() -> None:
    def lock(cpu: str, gpu: str) -> Lock:
        return Lock("pdm.lock", "pdm.lock", (
            Pin("torch", Version(cpu), groups=("cpu",)), Pin("torch", Version(gpu), groups=("gpu",)),
        ))

    diff = diff_locks(lock("2.4.1+cpu", "2.4.1+cu121"), lock("2.5.1+cpu", "2.5.1+cu124"))
    assert moves(diff) == [
        ("torch", "2.4.1+cpu", "2.5.1+cpu", "group cpu"), ("torch", "2.4.1+cu121", "2.5.1+cu124", "group gpu"),
    ]


def test_a_python_the_new_lock_drops_is_not_a_removal() -> None:
    old = Lock("a", "poetry.lock", (Pin("torch", Version("2.8.0")),), python=">=3.9")
    new = Lock("b", "poetry.lock", (Pin("torch", Version("2.9.0"), 'python_version >= "3.10"'),), python=">=3.10")
    assert [(t.direction, str(t.new)) for t in diff_locks(old, new).packages] == [("upgrade", "2.9.0")]
    admits = Lock("b", "poetry.lock", new.pins, python=">=3.9")  # torch left out on 3.9: a removal there
    assert [(t.direction, t.variant) for t in diff_locks(old, admits).packages] == [
        ("removed", "python < 3.10"), ("upgrade", "python >= 3.10"),
    ]


def test_platform_option_keeps_every_extra_of_that_platform() -> None:
    from auditor.lockfiles import Selection

    linux = diff_locks(read(EXTRAS[0]), read(EXTRAS[1]), Selection(platform="linux-64"))
    assert [t.variant for t in linux.transition("torch")] == ["default", "extra cpu", "linux x86_64, extra rocm"]
    mac = diff_locks(read(EXTRAS[0]), read(EXTRAS[1]), Selection(platform="osx-arm64"))
    assert [t.variant for t in mac.transition("torch")] == ["default", "extra cpu"]  # no rocm wheels for macOS


def test_compare_git_names_the_lock_as_the_repository_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    (tmp_path / "envs").mkdir()
    revisions = []
    for lock in CUDA13:
        (tmp_path / "envs" / "uv.lock").write_text((LOCKS / lock).read_text())
        git("add", "-A")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", lock)
        revisions.append(git("rev-parse", "HEAD").strip())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["compare", "--git", f"{revisions[0]}..{revisions[1]}", "--no-cache", "-f", "json"])
    assert result.exit_code == 1, result.output
    cuda = next(e for e in json.loads(result.stdout)["environment"] if e["kind"] == "cuda-major-changed")
    assert (cuda["path"], cuda["line"]) == ("envs/uv.lock", 48)
    annotated = CliRunner().invoke(app, ["compare", "--git", f"{revisions[0]}..{revisions[1]}", "--no-cache", "-f", "github"])
    assert "::error file=envs/uv.lock,line=48,title=auditor%3A cuda-major-changed::torch 2.10.0 -> 2.11.0" in annotated.stdout


def test_a_variant_new_in_the_new_lock_is_said_to_be_unchecked(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("numpy==2.2.6\n")
    (tmp_path / "new.txt").write_text("torch==2.7.1\nnumpy==2.2.6\n")
    (tmp_path / "project").mkdir()
    result = CliRunner().invoke(app, [
        "compare", str(tmp_path / "old.txt"), str(tmp_path / "new.txt"), "--project", str(tmp_path / "project"),
        "--no-cache", "--format", "markdown",
    ])
    assert "torch 2.7.1 is new in the new lock: there is no earlier version to compare" in result.stdout
    assert "✅" not in result.stdout


def test_each_extra_is_checked_for_the_python_it_runs_on(kb: KnowledgeBase) -> None:
    from auditor.lockfiles import Selection

    diff = diff_locks(read(EXTRAS[0]), read(EXTRAS[1]), Selection(python="3.9"), kb.entries)
    unsupported = sorted(e.message.split(": ")[0] for e in diff.environment if e.kind == "python-unsupported")
    assert unsupported == [
        "Python 3.9 (--python-version) with torch 2.10.0+rocm7.1 [linux x86_64, extra rocm]",
        "Python 3.9 (--python-version) with torch 2.12.0 [default]",
        "Python 3.9 (--python-version) with torch 2.12.0+cpu [extra cpu]",
    ]


def test_sarif_places_a_lock_finding_at_the_lock_line(tmp_path: Path) -> None:
    from jsonschema import Draft4Validator

    _, out = compare(tmp_path, *CUDA13, "--format", "sarif")
    document = json.loads(out)
    schema = json.loads((LOCKS.parent / "report" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    assert not list(Draft4Validator(schema).iter_errors(document))
    (cuda,) = [n for n in document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
               if n["descriptor"]["id"] == "cuda-major-changed"]
    location = cuda["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("cuda13-new/uv.lock") and location["region"] == {"startLine": 48}
