"""Conflicting extras (uv's `conflicts`): pins are compared only within installs uv makes, an
install activating the extras its extras ask for and never two extras of one conflict set."""

import subprocess
from collections import Counter
from pathlib import Path

import pytest
from lockfixtures import read
from packaging.version import Version

from auditor.lockfiles import diff_locks, read_lock
from auditor.lockfiles.variants import Grid
from auditor.models import Lock, Pin

CONFLICTS = ("uv/conflicts-old/uv.lock", "uv/conflicts-new/uv.lock")
MISMATCHES = {"companion-mismatch", "cuda-build-mismatch"}
CPU, CU121 = "extra-6-myproj-cpu", "extra-6-myproj-cu121"


def test_a_lock_keeps_its_conflict_sets() -> None:
    assert read(CONFLICTS[1]).conflicts == (frozenset({CPU, CU121}),)


def test_pins_of_two_conflicting_extras_are_never_paired() -> None:
    """Every torch and torchvision pin has the fork marker of every install; only the edges
    that choose it tell its extra. torch 2.4.1 is reached only by `extra == cpu and extra ==
    cu121`, an install uv refuses."""
    old, new = read(CONFLICTS[0]), read(CONFLICTS[1])
    diff = diff_locks(old, new)
    assert [(t.package, str(t.old), str(t.new), t.variant) for t in diff.packages] == [
        ("torch", "2.4.1+cpu", "2.5.1+cpu", "extra cpu"),
        ("torchvision", "0.19.1+cpu", "0.20.1+cpu", "extra cpu"),
    ]
    assert not [e.message for e in diff.environment if e.kind in MISMATCHES]
    grid = Grid((old, new))
    refused = next(p for p in new.pins if p.version == Version("2.4.1"))
    assert grid.cover(refused) == 0 and grid.name(0) == "other platforms or extras"


def test_a_mismatch_inside_one_extra_is_still_found(tmp_path: Path) -> None:
    text = (Path(__file__).parents[1] / "fixtures" / "lockfiles" / CONFLICTS[1]).read_text()
    (tmp_path / "uv.lock").write_text(text.replace("0.20.1+cpu", "0.19.1+cpu"))
    diff = diff_locks(read(CONFLICTS[0]), read_lock(tmp_path / "uv.lock"))
    (found,) = [e for e in diff.environment if e.kind in MISMATCHES]
    assert found.message.startswith("torchvision 0.19.1+cpu was built for another torch than 2.5.1+cpu [extra cpu]")


def test_without_the_lock_s_conflicts_the_pyproject_s_are_read(tmp_path: Path) -> None:
    fixtures = Path(__file__).parents[1] / "fixtures" / "lockfiles"
    for side, relative in zip(("old", "new"), CONFLICTS):
        text = (fixtures / relative).read_text()
        start = text.index("conflicts = [[")
        (tmp_path / side).mkdir()
        (tmp_path / side / "uv.lock").write_text(text[:start] + text[text.index("]]", start) + 3 :])
        (tmp_path / side / "pyproject.toml").write_text(
            '[project]\nname = "myproj"\n\n[tool.uv]\nconflicts = [[{ extra = "cpu" }, { extra = "cu121" }]]\n'
        )
    old, new = read_lock(tmp_path / "old" / "uv.lock"), read_lock(tmp_path / "new" / "uv.lock")
    assert "conflicts" not in (tmp_path / "new" / "uv.lock").read_text()
    assert new.conflicts == (frozenset({CPU, CU121}),)
    assert not [e.message for e in diff_locks(old, new).environment if e.kind in MISMATCHES]


def lock(*pins: Pin, conflicts: tuple[frozenset[str], ...] = (), activates: tuple[tuple[str, frozenset[str]], ...] = ()) -> Lock:
    return Lock("uv.lock", "uv.lock", pins, conflicts=conflicts, activates=activates)


def test_an_extra_activates_the_extras_it_asks_for() -> None:
    """`app[cpu]` asks for `lib[cpu]`: uv writes the pin both select as holding where both are
    active, and the install is named by the extra the user asks for."""
    app, lib = "extra-3-app-cpu", "extra-3-lib-cpu"
    both = lock(
        Pin("torch", Version("2.5.1+cpu"), f"extra == '{app}' and extra == '{lib}'"),
        conflicts=(frozenset({app, "extra-3-app-cu121"}), frozenset({lib, "extra-3-lib-cu121"})),
        activates=((app, frozenset({lib})),),
    )
    grid = Grid((both,))
    assert grid.name(grid.cover(both.pins[0])) == "extra cpu"


def test_an_extra_that_activates_two_of_one_conflict_set_is_no_install() -> None:
    everything = lock(
        Pin("torch", Version("2.5.1+cpu"), f"extra == 'all' or extra == '{CPU}'"),
        Pin("torch", Version("2.4.1+cu121"), f"extra == 'all' or extra == '{CU121}'"),
        conflicts=(frozenset({CPU, CU121}),),
        activates=(("all", frozenset({CPU, CU121})),),
    )
    grid = Grid((everything,))
    assert [e[:1] for e in grid.extras] == [(), (CPU,), (CU121,)]  # no install for `all`
    assert [grid.name(grid.cover(p)) for p in everything.pins] == ["extra cpu", "extra cu121"]


# --- a real bump: anomalib's Renovate lock maintenance ---------------------------------------------

ANOMALIB = Path("/work/.mirror/open-edge-platform+anomalib/repo")
BASE, HEAD = "277f9a165104176456d90d89cccbb3417b87d719", "fadc6203c0676ca04df31210436866cfcac333f6"


def blob(commit: str, path: str, into: Path) -> Lock:
    into.mkdir(parents=True, exist_ok=True)
    shown = subprocess.run(["git", "--git-dir", str(ANOMALIB), "show", f"{commit}:{path}"],
                           capture_output=True, check=True)
    (into / "uv.lock").write_bytes(shown.stdout)
    return read_lock(into / "uv.lock")


@pytest.mark.skipif(not ANOMALIB.is_dir(), reason="no snapshot of open-edge-platform/anomalib at " + str(ANOMALIB))
@pytest.mark.parametrize(
    ("path", "installs", "variants", "kinds"),
    [
        # the project's own lock: one conflict set of five extras
        ("uv.lock", 16, {"extra cu130"}, {}),
        # anomalib-studio: its cpu, cu130 and xpu extras ask for anomalib's, a second conflict set
        ("application/backend/uv.lock", 9,
         {"default and extras mqtt, openvino", "extra cu130", "other platforms or extras, group cpu, group cu130, group xpu"},
         {"cuda-major-changed": 1, "macos-baseline-raised": 1}),
    ],
)
def test_anomalib_extras_are_compared_within_installs_uv_makes(
    tmp_path: Path, path: str, installs: int, variants: set[str], kinds: dict[str, int]
) -> None:
    old, new = blob(BASE, path, tmp_path / "old"), blob(HEAD, path, tmp_path / "new")
    diff = diff_locks(old, new)
    assert len(Grid((old, new)).extras) == installs
    assert {t.variant for t in diff.packages if t.package in ("torch", "torchvision")} == variants
    assert Counter(e.kind for e in diff.environment) == kinds  # 36 and 42 cross-extra pairs before
    # the CPU-index torch 2.13.0 and PyPI torchvision 0.28.0 are locked only for studio's cu130
    # with anomalib's cpu, a combination no extra activates: moved, unchecked, and said so
    unreached = [t for t in diff.packages if t.package in ("torch", "torchvision")
                 and (t.variant or "").startswith("other platforms or extras")]
    assert [n.partition(": ")[2].partition(" are")[0] for n in diff.notes] == (
        [f"{len(unreached)} torch-family move(s)"] if unreached else []
    )
