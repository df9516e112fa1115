"""Whole-project inference: a parameter fed only by callers in other modules takes the tag they
pass (`scan/feeds.py`), and the scan cache re-analyses the callee when a caller changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.scan import scan_project
from auditor.scan.project import ScanOptions

FLOOR = "torch-floor-divide-rounds-toward-floor"
UTILS = "import torch\n\n\ndef bucket(t, n=2):\n    return t // n\n"


@pytest.fixture(scope="module")
def floor(kb: KnowledgeBase) -> list[SpecChange]:
    return [kb.get(FLOOR)]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def _sites(root: Path, changes: list[SpecChange], cache: Path | None = None) -> list[tuple[str, int]]:
    findings, _ = scan_project(root, changes, options=ScanOptions(cache_dir=cache, workers=1))
    return [(f.path, f.line) for f in findings]


def test_a_parameter_fed_a_tensor_from_another_module(tmp_path: Path, floor: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "utils.py": UTILS,
        "train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(torch.arange(-5, 5)))\n",
    })
    assert _sites(root, floor) == [("utils.py", 5)]


def test_alone_the_module_says_nothing(tmp_path: Path, floor: list[SpecChange]) -> None:
    assert _sites(_write(tmp_path, {"utils.py": UTILS}), floor) == []


def test_relative_and_module_imports_inside_a_package(tmp_path: Path, floor: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": UTILS,
        "pkg/train.py": "import torch\nfrom .ops import bucket\n\nbucket(torch.zeros(3, dtype=torch.int64), n=4)\n",
        "pkg/eval.py": "import torch\nimport pkg.ops as ops\n\nops.bucket(torch.arange(-3, 3))\n",
    })
    assert _sites(root, floor) == [("pkg/ops.py", 5)]


def test_a_script_imports_the_module_beside_it(tmp_path: Path, floor: list[SpecChange]) -> None:
    # Two scripts' folders, each with its own utils.py: `from utils import bucket` is the one
    # beside the importing script (sys.path[0]), as `ProjectModules.find` says for version guards.
    root = _write(tmp_path, {
        "a/utils.py": UTILS,
        "a/train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(torch.arange(-5, 5)))\n",
        "b/utils.py": UTILS,
        "b/train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(7))\n",
    })
    assert _sites(root, floor) == [("a/utils.py", 5)]


@pytest.mark.parametrize("other", [
    "from utils import bucket\n\nbucket(7)\n",  # an int: // on ints is Python's
    "from utils import bucket\n\nbucket(*args)\n",  # arguments out of view
    "from utils import bucket\n\nlist(map(bucket, xs))\n",  # passed around: its calls are not seen
])
def test_one_caller_passing_something_else_rules_it_out(tmp_path: Path, floor: list[SpecChange], other: str) -> None:
    root = _write(tmp_path, {
        "utils.py": UTILS,
        "train.py": "import torch\nfrom utils import bucket\n\nbucket(torch.arange(-5, 5))\n",
        "other.py": "import torch\n" + other,
    })
    assert _sites(root, floor) == []


def test_a_caller_edit_reanalyses_the_callee_through_the_cache(tmp_path: Path, floor: list[SpecChange]) -> None:
    root = _write(tmp_path / "project", {
        "utils.py": UTILS,
        "train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(torch.arange(-5, 5)))\n",
    })
    cache = tmp_path / "cache"
    assert _sites(root, floor, cache) == [("utils.py", 5)]
    assert _sites(root, floor, cache) == [("utils.py", 5)]  # warm: from the cache
    _write(root, {"train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(5))\n"})
    assert _sites(root, floor, cache) == []  # utils.py's bytes did not change, its feed did
    _write(root, {"train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(torch.arange(-5, 5)))\n"})
    assert _sites(root, floor, cache) == [("utils.py", 5)]
    assert _sites(root, floor, cache) == _sites(root, floor)  # cached and uncached agree


def test_the_second_analyses_share_the_first_pass_processes(tmp_path: Path, floor: list[SpecChange]) -> None:
    # Two modules fed by a third: with processes, the first pass's pool analyses them again
    # (`project._Pool`); the findings, cold and from the cache, are those of one process.
    root = _write(tmp_path / "project", {
        "a.py": UTILS,
        "b.py": UTILS.replace("bucket", "halve"),
        "train.py": "import torch\nfrom a import bucket\nfrom b import halve\n\n"
                    "print(bucket(torch.arange(-5, 5)), halve(torch.arange(-3, 3)))\n",
    })
    cache = tmp_path / "cache"

    def sites(workers: int, cache_dir: Path | None = None) -> list[tuple[str, int]]:
        findings, _ = scan_project(root, floor, options=ScanOptions(cache_dir=cache_dir, workers=workers))
        return [(f.path, f.line) for f in findings]

    assert sites(1) == [("a.py", 5), ("b.py", 5)]
    assert sites(2) == sites(1)
    assert sites(2, cache) == sites(1)
    assert sites(2, cache) == sites(1)  # warm: the second results from the cache


def _notebook(path: Path, *cells: str) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# analysis"), *(nbformat.v4.new_code_cell(c) for c in cells)]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))


def test_a_notebook_feeds_the_module_it_imports(tmp_path: Path, floor: list[SpecChange]) -> None:
    # Research code calls the package's helpers from notebooks: the cells, read together, are
    # a caller like any module (no module imports a notebook, so nothing feeds it).
    root = _write(tmp_path / "project", {"lib/utils.py": UTILS})
    _notebook(root / "lib" / "explore.ipynb", "import torch\nfrom utils import bucket", "bucket(torch.arange(-5, 5))")
    assert _sites(root, floor) == [("lib/utils.py", 5)]
    assert _sites(root, floor, tmp_path / "cache") == [("lib/utils.py", 5)]
    assert _sites(root, floor, tmp_path / "cache") == [("lib/utils.py", 5)]  # warm


def test_a_notebook_passing_something_else_rules_the_parameter_out(tmp_path: Path, floor: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "utils.py": UTILS,
        "train.py": "import torch\nfrom utils import bucket\n\nbucket(torch.arange(-5, 5))\n",
    })
    _notebook(root / "explore.ipynb", "import torch\nfrom utils import bucket", "bucket(7)")
    assert _sites(root, floor) == []


def test_a_method_fed_by_its_class(tmp_path: Path, floor: list[SpecChange]) -> None:
    # `self.helper(t)` with a tensor: the method's parameter meets `//` as a tensor; fed a
    # number by one call, it is not.
    method = (
        "import torch\n\n\nclass Pool:\n    def helper(self, t):\n        return t // 2\n\n"
        "    def forward(self):\n        return self.helper({})\n"
    )
    root = _write(tmp_path, {"a.py": method.format("torch.arange(-4, 4)"), "b.py": method.format("3")})
    assert _sites(root, floor) == [("a.py", 6)]


def test_the_second_analysis_gives_findings_only(floor: list[SpecChange]) -> None:
    """Analysed again with what it is fed, a module's facts are those of its first analysis:
    they are not made again (`project._feed` keeps the first ones)."""
    from auditor.scan.rules import RuleIndex
    from auditor.scan.scanner import analyse_source
    from auditor.scan.tags import TENSOR

    index = RuleIndex.build(floor)
    source = "import torch\n\ndef half(x):\n    return x // 2\n"
    first, facts = analyse_source(source, "m.py", index)
    assert first == [] and facts is not None and facts.asked == [["half", "x"]]
    again, none = analyse_source(source, "m.py", index, fed={("half", "x"): TENSOR})
    assert [f.line for f in again] == [4] and none is None


def test_a_parameter_typed_only_for_the_facts_is_not_asked_about(floor: list[SpecChange]) -> None:
    """`x` is typed to say what `f` passes `g`, not by any check: fed, it would change only
    these facts, which the second analysis does not make, so it is not asked about."""
    from auditor.scan.rules import RuleIndex
    from auditor.scan.scanner import analyse_source

    source = "import torch\nfrom .other import g\n\nhalf = torch.arange(-4, 4) // 2\n\ndef f(x):\n    return g(x)\n"
    findings, facts = analyse_source(source, "pkg/m.py", RuleIndex.build(floor))
    assert [f.line for f in findings] == [4]
    assert facts is not None and facts.calls == [[".other.g", [None], [], False]]
    assert facts.asked == []
