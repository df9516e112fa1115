"""Version guards: code behind a torch-version test that holds the same way at both ends of the
transition never runs (no finding); where the test flips inside the transition, or its outcome
is unknown, the code counts as running (the finding stays). Small real sources, both directions,
one module and across modules of a project, and the scan cache when the other module changes."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from packaging.version import Version
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.models import Finding
from auditor.scan import RuleIndex, scan_project, scan_source
from auditor.scan.cache import DATABASE, decode, encode
from auditor.scan.project import ScanOptions
from auditor.scan.rules import Ends, transition_ends

AUTOCAST = "torch-cuda-amp-autocast-deprecated"  # torch.cuda.amp.autocast() warns from 2.4
UP = transition_ends([("torch", Version("1.12.1"), Version("2.6.0"), None)])
DOWN = transition_ends([("torch", Version("2.6.0"), Version("1.12.1"), None)])
FLIPS_AT_2 = transition_ends([("torch", Version("1.13.1"), Version("2.6.0"), None)])  # a `>= 2.0` guard flips


@pytest.fixture(scope="module")
def changes() -> tuple[SpecChange, ...]:
    return tuple(c for c in KnowledgeBase.load().entries if c.id == AUTOCAST)


def lines(source: str, changes: tuple[SpecChange, ...], ends: Ends) -> list[int]:
    index = RuleIndex.build(changes, ends=ends)
    return sorted(f.line for f in scan_source(textwrap.dedent(source), "m.py", index) if f.change == AUTOCAST)


# Each source calls the deprecated spelling on line 5 behind a guard that holds for torch >= 1.10
# (dead on 1.12.1 and 2.6.0, either way round) and on line 7 where it always runs.
OLD_ONLY = {
    "string compare (TorchVersion)": 'torch.__version__ >= "1.10"',
    "Version()": 'Version(torch.__version__) >= Version("1.10")',
    "packaging.version.parse": 'version.parse(torch.__version__) >= version.parse("1.10.0")',
    "LooseVersion": 'LooseVersion(torch.__version__) >= LooseVersion("1.10")',
    "base_version": 'version.parse(version.parse(torch.__version__).base_version) >= version.parse("1.10")',
    "release tuple": "version.parse(torch.__version__).release >= (1, 10)",
    "int tuple": 'tuple(int(x) for x in torch.__version__.split(".")[:2]) >= (1, 10)',
    "map tuple": 'tuple(map(int, torch.__version__.split(".")[:2])) >= (1, 10)',
    "split +": 'version.parse(torch.__version__.split("+")[0]) >= version.parse("1.10")',
    "compare_version": 'compare_version("torch", operator.ge, "1.10.0")',
    "RequirementCache": 'bool(RequirementCache("torch>=1.10"))',
    "flipped operands": '"1.10" <= torch.__version__',
    "metadata": 'version.parse(importlib.metadata.version("torch")) >= version.parse("1.10")',
}
HEADER = """\
    import importlib.metadata, operator, torch
    from distutils.version import LooseVersion
    from packaging import version
    from packaging.version import Version
    from lightning_utilities.core.imports import compare_version, RequirementCache
"""


@pytest.mark.parametrize("test", OLD_ONLY.values(), ids=OLD_ONLY.keys())
@pytest.mark.parametrize("ends", [UP, DOWN], ids=["upgrade", "downgrade"])
def test_a_branch_for_old_releases_is_dead_on_both_sides(test: str, ends: Ends, changes: tuple[SpecChange, ...]) -> None:
    test = test if not test.startswith("bool(") else test[5:-1]
    source = HEADER + f"""\
    def context():
        if {test}:
            return torch.autocast("cuda")
        return torch.cuda.amp.autocast()   # line 9: runs below 1.10 only
    def always():
        return torch.cuda.amp.autocast()   # line 11
    """
    assert lines(source, changes, ends) == [11]
    assert lines(source, changes, ()) == [9, 11]  # no transition known: every line counts


def test_the_forms_of_a_guard(changes: tuple[SpecChange, ...]) -> None:
    source = """\
    import torch
    from packaging.version import Version
    TORCH_1_10 = Version(torch.__version__) >= Version("1.10")
    TORCH_2 = Version(torch.__version__) >= Version("2.0")
    if not TORCH_1_10:
        torch.cuda.amp.autocast()        # 6: not X, dead
    if TORCH_1_10:
        pass
    else:
        torch.cuda.amp.autocast()        # 10: else, dead
    def f(ready):
        if not TORCH_1_10:
            raise RuntimeError("old")
        torch.cuda.amp.autocast()        # 14: after an early raise, runs
        if TORCH_1_10 and ready:
            return
        torch.cuda.amp.autocast()        # 17: `ready` decides, runs
        if not TORCH_1_10 and ready:
            torch.cuda.amp.autocast()    # 19: `X and ...` false, dead
        x = TORCH_1_10 or torch.cuda.amp.autocast()   # 20: right of `or`, dead
        y = torch.cuda.amp.autocast() if not TORCH_1_10 else None   # 21: dead
        if TORCH_2:
            torch.cuda.amp.autocast()    # 23: runs from 2.0 on, across the 2.4 change
        elif ready:
            torch.cuda.amp.autocast()    # 25: runs below 2.0 only, never on the 2.4 change
    def g(TORCH_1_10):
        if not TORCH_1_10:
            torch.cuda.amp.autocast()    # 28: a parameter, not the module's constant: runs
    """
    assert lines(source, changes, UP) == [14, 17, 23, 28]
    assert lines(source, changes, DOWN) == [14, 17, 23, 28]
    # 2.6.0 -> 2.8.0 does not cross the 2.4 change: the `>= 2.0` guard holds on both sides
    assert lines(source, changes, transition_ends([("torch", Version("2.6.0"), Version("2.8.0"), None)])) == [14, 17, 23, 28]


def test_a_guard_that_flips_inside_the_transition_keeps_the_finding(changes: tuple[SpecChange, ...]) -> None:
    source = """\
    import torch
    from packaging.version import Version
    def context():
        if Version(torch.__version__) >= Version("2.5"):
            return torch.autocast("cuda")
        return torch.cuda.amp.autocast()   # 6: runs below 2.5, so on 2.3 and on 2.4 (the change)
    """
    assert lines(source, changes, FLIPS_AT_2) == [6]
    assert lines(source, changes, transition_ends([("torch", Version("2.6.0"), Version("1.13.1"), None)])) == [6]
    assert lines(source, changes, UP) == [6]


def moved(changes: tuple[SpecChange, ...], release: str) -> tuple[SpecChange, ...]:
    """The autocast change as if released at `release` (the guards read only its release)."""
    return tuple(replace(c, introduced=Version(release)) for c in changes)


WINDOWS = """\
    import torch
    from packaging.version import Version
    if Version(torch.__version__) < Version("1.11"):
        torch.cuda.amp.autocast()    # 4: runs on 1.10 only
    if Version(torch.__version__) >= Version("2.0"):
        torch.cuda.amp.autocast()    # 6: runs from 2.0 on
    if Version(torch.__version__) < Version("2.1"):
        torch.cuda.amp.autocast()    # 8: runs on 1.10 .. 2.0.x
    torch.cuda.amp.autocast()        # 9: always
    """
FROM_1_10 = transition_ends([("torch", Version("1.10.0"), Version("2.6.0"), None)])
TO_1_10 = transition_ends([("torch", Version("2.6.0"), Version("1.10.0"), None)])


@pytest.mark.parametrize("ends", [FROM_1_10, TO_1_10], ids=["upgrade", "downgrade"])
def test_a_line_that_runs_only_before_a_change_is_not_affected_by_it(ends: Ends, changes: tuple[SpecChange, ...]) -> None:
    """Under `if torch < 1.11` a 2.0 change never reaches the line: on every release where it runs
    the old behaviour holds. The line runs at one end (1.10.0), so `dead` alone keeps it."""
    assert lines(WINDOWS, moved(changes, "2.0.0"), ends) == [8, 9]
    assert lines(WINDOWS, changes, ends) == [6, 9]  # the real 2.4 change: line 8 stops before it


@pytest.mark.parametrize("ends", [FROM_1_10, TO_1_10], ids=["upgrade", "downgrade"])
def test_a_line_that_runs_only_after_a_change_is_not_affected_by_it(ends: Ends, changes: tuple[SpecChange, ...]) -> None:
    """Under `if torch >= 2.0` a 1.13 change has already happened wherever the line runs (and
    line 4 stops before it)."""
    assert lines(WINDOWS, moved(changes, "1.13.0"), ends) == [8, 9]


@pytest.mark.parametrize("ends", [FROM_1_10, TO_1_10], ids=["upgrade", "downgrade"])
def test_a_line_whose_window_straddles_the_change_keeps_the_finding(ends: Ends, changes: tuple[SpecChange, ...]) -> None:
    """A 2.0.1 change: `>= 2.0` runs on 2.0.0 and 2.0.1, `< 2.1` too. A 1.10.1 change: `< 1.11`
    runs on 1.10.0 and on 1.10.1 (patch releases count)."""
    assert lines(WINDOWS, moved(changes, "2.0.1"), ends) == [6, 8, 9]
    assert lines(WINDOWS, moved(changes, "1.10.1"), ends) == [4, 8, 9]


def test_unknown_outcomes_between_the_ends_keep_the_finding(changes: tuple[SpecChange, ...]) -> None:
    """`torch.__version__ < "1.10"` compares strings before 1.10 ("1.9.0" < "1.10" is False) and a
    TorchVersion after: the line may run on no release, and a string test is read release by
    release, never assumed to be monotone."""
    source = """\
    import torch
    if torch.__version__ < "1.10":
        torch.cuda.amp.autocast()    # 3: never on 1.9.x (strings), never from 1.10 (versions)
    if torch.__version__ >= "1.9" and torch.__version__ < "2.1":
        torch.cuda.amp.autocast()    # 5: 1.9.x as strings; 1.10 .. 2.0.x as versions
    """
    ends = transition_ends([("torch", Version("1.9.0"), Version("2.6.0"), None)])
    assert lines(source, moved(changes, "1.13.0"), ends) == [5]


def test_outcomes_that_depend_on_the_build_are_unknown(changes: tuple[SpecChange, ...]) -> None:
    """On 2.6.0, `torch.__version__ > "2.6"` holds for 2.6.0+cu124 and not for 2.6.0; before 1.10
    torch.__version__ is a plain string ("1.9.0" > "1.10" as strings)."""
    source = """\
    import torch
    if torch.__version__ > "2.6":
        torch.cuda.amp.autocast()    # 3
    if torch.__version__ < "1.10":
        torch.cuda.amp.autocast()    # 5
    """
    assert lines(source, changes, transition_ends([("torch", Version("2.6.0"), Version("2.8.0"), None)])) == [3]
    # 1.9.0 -> 2.6.0: "1.9.0" < "1.10" is False as strings (so on both sides line 5 is dead); line 3
    # may run on 2.6.0 (a local build) but on no release before the 2.4 change: no finding either
    assert lines(source, changes, transition_ends([("torch", Version("1.9.0"), Version("2.6.0"), None)])) == []


def test_tests_that_are_not_version_orders_are_unknown(changes: tuple[SpecChange, ...]) -> None:
    source = """\
    import sys, torch
    A = B
    B = A
    if "1.1" in torch.__version__ or torch.__version__ is None or A or sys.version_info < (3, 0):
        torch.cuda.amp.autocast()    # 5
    if torch.__version__ >= "1.10" > "1.9" and not (torch.__version__ < (1, 10)):
        torch.cuda.amp.autocast()    # 7: "1.10" > "1.9" compares no version: the chain is unknown
    """
    assert lines(source, changes, UP) == [5, 7]


def test_another_package_or_no_version_is_unknown(changes: tuple[SpecChange, ...]) -> None:
    source = """\
    import numpy, torch
    from packaging.version import Version
    if Version(numpy.__version__) < Version("1.0"):
        torch.cuda.amp.autocast()    # 4: numpy does not move here
    if Version(torch.__version__) < Version("1.0"):
        torch.cuda.amp.autocast()    # 6: dead
    """
    assert lines(source, changes, UP) == [4]
    numpy_too = transition_ends([("torch", Version("1.12.1"), Version("2.6.0"), None), ("numpy", Version("1.26.4"), Version("2.1.0"), None)])
    assert lines(source, changes, numpy_too) == []


# -- across modules --------------------------------------------------------------------------

IMPORTS = 'import operator\nfrom lightning_utilities.core.imports import compare_version\n_TORCH_GREATER_EQUAL_1_10 = compare_version("torch", operator.ge, "1.10.0")\n'
PLUGIN = """\
import torch
from pkg.utilities.imports import _TORCH_GREATER_EQUAL_1_10
from .relative import NEW


def context():
    if _TORCH_GREATER_EQUAL_1_10:
        return torch.autocast("cuda")
    return torch.cuda.amp.autocast()   # 9


def other():
    if NEW:
        return None
    return torch.cuda.amp.autocast()   # 15
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg" / "utilities").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "utilities" / "__init__.py").write_text("from pkg.utilities.imports import _TORCH_GREATER_EQUAL_1_10\n")
    (root / "pkg" / "utilities" / "imports.py").write_text(IMPORTS)
    (root / "pkg" / "plugins").mkdir()
    (root / "pkg" / "plugins" / "plugin.py").write_text(PLUGIN)
    (root / "pkg" / "plugins" / "relative.py").write_text(
        "from ..utilities import _TORCH_GREATER_EQUAL_1_10 as NEW  # a re-export, relative\n"
    )
    return root


def found(root: Path, changes: tuple[SpecChange, ...], ends: Ends, cache: Path | None = None, workers: int = 1) -> list[tuple[str, int]]:
    findings, _ = scan_project(root, changes, options=ScanOptions(cache_dir=cache, workers=workers), ends=ends)
    return sorted((f.path, f.line) for f in findings)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_constant_of_another_module(project: Path, changes: tuple[SpecChange, ...], workers: int) -> None:
    assert found(project, changes, UP, workers=workers) == []
    assert found(project, changes, DOWN, workers=workers) == []
    # 1.9.0 -> 2.6.0: the guard flips at 1.10, so lines 9 and 15 run on 1.9 only, never on the 2.4 change
    flips = transition_ends([("torch", Version("1.9.0"), Version("2.6.0"), None)])
    assert found(project, changes, flips, workers=workers) == []
    # with the guard at 2.5 they run on 2.3 and on 2.4: both sides of the change
    (project / "pkg" / "utilities" / "imports.py").write_text(IMPORTS.replace('"1.10.0"', '"2.5.0"'))
    assert found(project, changes, UP, workers=workers) == [("pkg/plugins/plugin.py", 9), ("pkg/plugins/plugin.py", 15)]


def test_a_constant_imported_relatively_inside_a_function(project: Path, changes: tuple[SpecChange, ...]) -> None:
    """transformers' `from .pytorch_utils import is_torch_less_than_1_11` inside the function
    that tests it: the same constant as a module-level import."""
    (project / "pkg" / "plugins" / "local.py").write_text(
        "import torch\n"
        "def context():\n"
        "    from ..utilities.imports import _TORCH_GREATER_EQUAL_1_10 as NEW\n"
        "    if not NEW:\n"
        "        return torch.cuda.amp.autocast()   # 5: below 1.10 only\n"
        "    def inner():\n"
        "        NEW = object()\n"
        "        if not NEW:\n"
        "            return torch.cuda.amp.autocast()   # 9: another NEW\n"
    )
    assert [f for f in found(project, changes, UP) if f[0] == "pkg/plugins/local.py"] == [("pkg/plugins/local.py", 9)]


def test_an_unknown_or_ambiguous_constant_counts_as_running(project: Path, changes: tuple[SpecChange, ...]) -> None:
    imports = project / "pkg" / "utilities" / "imports.py"
    imports.write_text(IMPORTS + "_TORCH_GREATER_EQUAL_1_10 = _TORCH_GREATER_EQUAL_1_10 or True\n")  # bound twice
    assert found(project, changes, UP) == [("pkg/plugins/plugin.py", 9), ("pkg/plugins/plugin.py", 15)]
    imports.unlink()
    assert found(project, changes, UP) == [("pkg/plugins/plugin.py", 9), ("pkg/plugins/plugin.py", 15)]


def test_the_cache_serves_a_result_only_while_the_other_module_is_unchanged(
    project: Path, changes: tuple[SpecChange, ...], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    assert found(project, changes, UP, cache) == []
    with sqlite3.connect(cache / DATABASE) as db:
        rows = db.execute("SELECT key, value FROM entries").fetchall()
        planted = Finding(AUTOCAST, "torch.planted", "", 1, 1, None, "high", "planted", "x")
        for key, value in rows:
            _, dependencies = decode(value, "")
            if dependencies:  # plugin.py's result: it rests on imports.py (and relative.py)
                assert {d.relative for d in dependencies} >= {"pkg/utilities/imports.py", "pkg/plugins/relative.py"}
                db.execute("UPDATE entries SET value = ? WHERE key = ?", (encode(([planted], [], None), dependencies), key))
    assert found(project, changes, UP, cache) == [("pkg/plugins/plugin.py", 1)]  # served from the cache

    imports = project / "pkg" / "utilities" / "imports.py"
    imports.write_text(IMPORTS.replace('"1.10.0"', '"3.0.0"'))  # now false on both sides
    both = [("pkg/plugins/plugin.py", 9), ("pkg/plugins/plugin.py", 15)]
    assert found(project, changes, UP, cache) == both  # scanned again: the early returns never happen
    assert found(project, changes, UP, cache) == both
    imports.write_text(IMPORTS)
    assert found(project, changes, UP, cache) == []
    imports.unlink()  # the module is gone: the lookup finds no file any more
    assert found(project, changes, UP, cache) == [("pkg/plugins/plugin.py", 9), ("pkg/plugins/plugin.py", 15)]


def test_the_cli_reads_the_transition(project: Path) -> None:
    runner = CliRunner()
    for bound, expected in (("1.10.0", 0), ("2.4.0", 0), ("2.5.0", 2)):  # 1.12.1 -> 2.6.0, the change at 2.4
        (project / "pkg" / "utilities" / "imports.py").write_text(IMPORTS.replace('"1.10.0"', f'"{bound}"'))
        old, new = "1.12.1", "2.6.0"
        result = runner.invoke(app, ["scan", str(project), "--from", old, "--to", new, "--no-cache", "-f", "json"])
        assert result.exit_code in (0, 1), result.output
        findings = [f for f in json.loads(result.output)["findings"] if f["change"] == AUTOCAST]
        assert len(findings) == expected


NAMED = "torch-named-tensors-removed"  # Tensor.names, rename_, ... gone in 2.13
ACROSS_2_13 = transition_ends([("torch", Version("2.12.1"), Version("2.13.0"), None)])


@pytest.fixture(scope="module")
def named() -> tuple[SpecChange, ...]:
    return tuple(c for c in KnowledgeBase.load().entries if c.id in (NAMED, AUTOCAST))


def named_lines(source: str, changes: tuple[SpecChange, ...], ends: Ends = ACROSS_2_13) -> list[int]:
    index = RuleIndex.build(changes, ends=ends)
    return sorted(f.line for f in scan_source(textwrap.dedent(source), "m.py", index) if f.change == NAMED)


def test_hasattr_names_is_the_version_test_of_named_tensors(named: tuple[SpecChange, ...]) -> None:
    """Brevitas' `if hasattr(inp, 'names') and 'N' in inp.names: inp.rename_(None)`: from 2.13
    tensors have no `names`, so the line never runs where rename_ is gone (nor does the else
    branch of the opposite test); a rename_ outside the test is reported."""
    source = """\
        import torch

        def unbatch(inp: torch.Tensor):
            if hasattr(inp, "names") and "N" in inp.names:
                inp.rename_(None)
            if not hasattr(torch.Tensor, "names"):
                pass
            else:
                inp.rename_(None)
            inp.rename_(None)
            return inp
        """
    assert named_lines(source, named) == [10]


def test_hasattr_on_something_known_not_to_be_a_tensor_is_not_read(named: tuple[SpecChange, ...]) -> None:
    source = """\
        import torch

        def f(t: torch.Tensor, model: torch.nn.Linear, names):
            if hasattr(model, "names"):
                t.rename_(None)
            hasattr = lambda *a: True
            if hasattr(t, "names"):
                t.rename_(None)
        """
    assert named_lines(source, named) == [5, 8]


def test_hasattr_tests_the_named_attribute_only_across_its_removal(named: tuple[SpecChange, ...]) -> None:
    """On 1.12.1 -> 2.6.0 the removal is not crossed: `hasattr(t, "names")` is not known, the
    autocast line under it counts as running; an attribute no crossed change removes is no test."""
    source = """\
        import torch

        def f(t: torch.Tensor):
            if hasattr(t, "names"):
                torch.cuda.amp.autocast()
            if hasattr(t, "shape"):
                t.rename_(None)
        """
    crossed = tuple(c for c in named if c.id == AUTOCAST)  # what 1.12.1 -> 2.6.0 crosses
    index = RuleIndex.build(crossed, ends=UP)
    assert [f.line for f in scan_source(textwrap.dedent(source), "m.py", index)] == [5]
    assert named_lines(source, named) == [7]
