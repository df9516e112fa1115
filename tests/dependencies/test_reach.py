"""The project's ways into a dependency's line: through the package's own re-exports, on instances,
into a class's `__init__`, and from notebooks' code cells."""

from __future__ import annotations

import json
from pathlib import Path

from auditor.dependencies.reach import Package, ProjectCalls

TRAINER = """import torch


class Trainer:
    def __init__(self, path):
        self.state = torch.load(path)

    def train(self):
        return self._restore()

    def _restore(self):
        return torch.load("last.ckpt")
"""


def package(tmp_path: Path) -> Package:
    root = tmp_path / "site"
    (root / "kit").mkdir(parents=True)
    (root / "kit" / "__init__.py").write_text("from .trainer import Trainer\n", "utf-8")
    (root / "kit" / "trainer.py").write_text(TRAINER, "utf-8")
    return Package(root)


def ways(tmp_path: Path, files: dict[str, str], line: int) -> list[tuple[str, int, int | None, tuple[str, ...]]]:
    """The project's ways to the `torch.load` at `line` of kit/trainer.py."""
    kit = package(tmp_path)
    holder = kit.holding("kit/trainer.py", line)
    assert holder is not None
    chains = tuple(kit.reaching(holder).values())
    names = {chain[0]: kit.names(chain[0]) for chain in chains}
    project = tmp_path / "project"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text, "utf-8")
    calls = ProjectCalls([(name, project / name) for name in sorted(files)])
    return [(w.path, w.line, w.cell, w.chain) for w in calls.ways(chains, names)]


def test_a_re_exported_class_is_named_by_its_package(tmp_path: Path) -> None:
    assert package(tmp_path).names("kit.trainer.Trainer.train") == ("kit.Trainer.train",)


def test_a_method_of_an_instance_bound_once_is_followed(tmp_path: Path) -> None:
    script = "from kit import Trainer\n\ntrainer = Trainer('w.pt')\ntrainer.train()\n"
    assert ways(tmp_path, {"run.py": script}, 12) == [
        ("run.py", 4, None, ("kit.trainer.Trainer.train", "kit.trainer.Trainer._restore"))
    ]


def test_a_method_called_on_the_instance_made_in_place_is_followed(tmp_path: Path) -> None:
    script = "import kit\n\nkit.Trainer('w.pt').train()\n"
    found = ways(tmp_path, {"run.py": script}, 12)
    assert [(path, line) for path, line, _, _ in found] == [("run.py", 3)]


def test_calling_the_class_reaches_its_init(tmp_path: Path) -> None:
    script = "from kit import Trainer\n\nTrainer('w.pt')\n"
    assert ways(tmp_path, {"run.py": script}, 6) == [("run.py", 3, None, ("kit.trainer.Trainer.__init__",))]


def test_a_name_bound_twice_is_not_claimed(tmp_path: Path) -> None:
    script = "from kit import Trainer\n\ntrainer = Trainer('w.pt')\ntrainer = object()\ntrainer.train()\n"
    assert ways(tmp_path, {"run.py": script}, 12) == []


def test_a_notebook_cell_is_a_way_in(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Train"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
         "source": ["from kit import Trainer\n", "trainer = Trainer('w.pt')"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
         "source": ["%matplotlib inline\n", "trainer.train()"]},
    ]
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    assert ways(tmp_path, {"train.ipynb": notebook}, 12) == [
        ("train.ipynb", 2, 3, ("kit.trainer.Trainer.train", "kit.trainer.Trainer._restore"))
    ]
