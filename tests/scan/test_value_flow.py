"""What decides a change, followed across modules: a keyword's value forwarded from a wrapper's
parameter or imported as a constant, a matched function re-exported by a package of the
project, and a tensor passed to a helper module that never imports torch."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.models import Finding
from auditor.scan import scan_project
from auditor.scan.project import ScanOptions

LOAD = "torch-load-weights-only-default-true"
FLOOR = "torch-floor-divide-rounds-toward-floor"
WRAPPER = "import torch\n\n\ndef load_ckpt(path, weights_only=None):\n    return torch.load(path, weights_only=weights_only)\n"


@pytest.fixture(scope="module")
def load(kb: KnowledgeBase) -> list[SpecChange]:
    return [kb.get(LOAD)]


@pytest.fixture(scope="module")
def floor(kb: KnowledgeBase) -> list[SpecChange]:
    return [kb.get(FLOOR)]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def _scan(root: Path, changes: list[SpecChange], cache: Path | None = None) -> list[Finding]:
    findings, skipped = scan_project(root, changes, options=ScanOptions(cache_dir=cache, workers=1))
    assert not skipped
    return findings


def _sites(findings: list[Finding]) -> list[tuple[str, int, str]]:
    return [(f.path, f.line, f.confidence) for f in findings]


def test_a_wrapper_called_from_another_module_with_its_default(tmp_path: Path, load: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "ckpt.py": WRAPPER,
        "train.py": "from ckpt import load_ckpt\n\nstate = load_ckpt('last.pt')\n",
    })
    findings = _scan(root, load)
    assert _sites(findings) == [("ckpt.py", 5, "medium")]
    assert "load_ckpt's parameter `weights_only` (default None), which a caller in another module leaves None" in findings[0].message


def test_a_constant_imported_from_another_module(tmp_path: Path, load: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "settings.py": "WEIGHTS_ONLY = None\nSTRICT = True\n",
        "train.py": "import torch\nfrom settings import WEIGHTS_ONLY, STRICT\n\n"
                    "a = torch.load('a.pt', weights_only=WEIGHTS_ONLY)\nb = torch.load('b.pt', weights_only=STRICT)\n",
    })
    assert _sites(_scan(root, load)) == [("train.py", 4, "medium")]


@pytest.mark.parametrize(("init", "use"), [
    ("from .io import tload\n", "import mypkg\n\nstate = mypkg.tload('a.pt')\n"),
    ("from .io import tload\n", "from mypkg import tload\n\nstate = tload('a.pt')\n"),
    ("from .io import tload\n", "from mypkg.io import tload\n\nstate = tload('a.pt')\n"),
    ("from torch import load\n", "import mypkg\n\nstate = mypkg.load('a.pt')\n"),
])
def test_a_function_re_exported_by_a_package(tmp_path: Path, load: list[SpecChange], init: str, use: str) -> None:
    root = _write(tmp_path / "project", {
        "mypkg/__init__.py": init,
        "mypkg/io.py": "from torch import load as tload\n",
        "train.py": use,
    })
    expected = [("train.py", 3, "torch.load")]
    assert [(f.path, f.line, f.symbol) for f in _scan(root, load)] == expected
    for _ in range(2):  # from a cold cache, then a warm one
        assert [(f.path, f.line, f.symbol) for f in _scan(root, load, tmp_path / "cache")] == expected


def test_a_project_function_of_the_same_name_is_not_torch_s(tmp_path: Path, load: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "mypkg/__init__.py": "def tload(path):\n    return open(path).read()\n",
        "train.py": "import torch\nfrom mypkg import tload\n\nstate = tload('a.pt')\n",
    })
    assert _scan(root, load) == []


def test_a_helper_module_that_never_imports_torch(tmp_path: Path, floor: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "utils.py": "def bucket(t):\n    return t // 2\n",
        "train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(torch.arange(5)))\n",
    })
    assert _sites(_scan(root, floor)) == [("utils.py", 2, "high")]
    assert _sites(_scan(root, floor, tmp_path / "cache")) == [("utils.py", 2, "high")]  # and from a cold cache
    assert _sites(_scan(root, floor, tmp_path / "cache")) == [("utils.py", 2, "high")]  # and a warm one


def test_a_helper_module_fed_no_tensor_stays_quiet(tmp_path: Path, floor: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "utils.py": "def bucket(t):\n    return t // 2\n",
        "train.py": "import torch\nfrom utils import bucket\n\nprint(bucket(7))\n",
    })
    assert _scan(root, floor) == []


def test_a_wrapper_every_caller_elsewhere_sets(tmp_path: Path, load: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "ckpt.py": WRAPPER,
        "train.py": "from ckpt import load_ckpt\n\nstate = load_ckpt('last.pt', weights_only=True)\n",
        "eval.py": "import ckpt\n\nstate = ckpt.load_ckpt('best.pt', False)\n",
    })
    assert _scan(root, load) == []


def test_a_wrapper_a_caller_elsewhere_gives_none(tmp_path: Path, load: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "ckpt.py": WRAPPER,
        "train.py": "from ckpt import load_ckpt\n\nstate = load_ckpt('last.pt', weights_only=True)\n",
        "eval.py": "import ckpt\n\nstate = ckpt.load_ckpt('best.pt', None)\n",
    })
    (finding,) = _scan(root, load)
    assert (finding.path, finding.line, finding.confidence) == ("ckpt.py", 5, "medium")
    assert "a caller in another module leaves None" in finding.message


def test_a_wrapper_whose_default_is_a_value(tmp_path: Path, load: list[SpecChange]) -> None:
    root = _write(tmp_path, {
        "ckpt.py": WRAPPER.replace("weights_only=None", "weights_only=False"),
        "train.py": "from ckpt import load_ckpt\n\nstate = load_ckpt('last.pt')\n",
    })
    assert _scan(root, load) == []


def test_a_call_of_a_lookup_by_name_is_no_plain_call(tmp_path: Path, load: list[SpecChange]) -> None:
    # `fix` rewrites a call's own arguments: here the call it would find first is getattr's
    root = _write(tmp_path, {"a.py": "import torch\n\nx = getattr(torch, 'load')('a.pt')\ny = torch.serialization.load('b.pt')\n"})
    assert [(f.line, f.symbol, f.shape) for f in _scan(root, load)] == [
        (3, "torch.load", "lookup"), (4, "torch.serialization.load", "call"),
    ]
