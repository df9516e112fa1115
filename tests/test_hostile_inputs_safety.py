"""Hostile and broken inputs, driven through the real CLI: each row writes files into a fresh
folder, runs `auditor ARGS` there and checks the exit code, a part of the message, and what the
output must never contain.

To add a case, add a row: `Case(id, files, args, exit, says, never)`. `{tmp}` in files and args is
the folder; a file's text may be bytes.
"""

from __future__ import annotations

import os
import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.loader import default_directory
from auditor.knowledge.stored import SUBDIRECTORY, _key


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, str | bytes]
    args: tuple[str, ...]
    exit: int
    says: str = ""
    never: tuple[str, ...] = ()
    within: float = 10.0  # seconds
    env: dict[str, str] = field(default_factory=dict)


class Pwn:
    """Unpickling this creates `pwned` in the working directory."""

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (Path("pwned"),))


KEPT = f"cache/{SUBDIRECTORY}/{_key(default_directory())}"
PWN = pickle.dumps(Pwn())
SCAN = ("scan", "p", "--from", "1.12.1", "--to", "1.13.0")
FLOOR = "torch-floor-divide-rounds-toward-floor"
PROJECT = {"p/m.py": "import torch\n"}

CASES = [
    # item 11: the kept knowledge base is JSON; a planted pickle is data that is damaged, not code
    Case("pickle planted as the kept knowledge base", {**PROJECT, f"{KEPT}.json": PWN, f"{KEPT}.pickle": PWN},
         (*SCAN, "--cache-dir", "cache"), 0, "is damaged"),
    Case("cache dir that is a file", {**PROJECT, "cache": "not a directory"},
         (*SCAN, "--cache-dir", "cache"), 0, "note: the scan cache in cache/scan cannot be used"),
    # item 15: the ignore marker counts in comments only, and a typo in an id is said
    Case("ignore marker inside a string", {"p/m.py": "import torch\nt = torch.arange(4)\na = (t // 2, '# auditor: ignore')\n"},
         SCAN, 1, "m.py:3:6"),
    Case("unknown id in an ignore comment", {"p/m.py": "import torch\nt = torch.arange(4)\na = t // 2  # auditor: ignore[torch-flor]\n"},
         SCAN, 1, "m.py: line 3: '# auditor: ignore[torch-flor]': no knowledge entry has this id"),
    # issue 12 §4: past the horizon, or a torch-family package without knowledge, fails the default --fail-on
    Case("scan past the horizon", PROJECT, ("scan", "p", "--from", "2.13.0", "--to", "2.17.0"), 1,
         "not reviewed past 2.15.0"),
    Case("downgrade from past the horizon", PROJECT, ("scan", "p", "--from", "2.17.0", "--to", "2.14.0"), 1,
         "MEDIUM torch 2.17.0 -> 2.14.0: not reviewed past 2.15.0"),
    Case("an unknown patch release past the horizon", PROJECT, ("scan", "p", "--from", "2.15.0", "--to", "2.15.1"), 1,
         "not reviewed past 2.15.0"),
    Case("torchaudio moves without knowledge", {"a/requirements.txt": "torch==2.3.1\ntorchaudio==2.3.1\n",
                                                "b/requirements.txt": "torch==2.3.1\ntorchaudio==2.7.0\n"},
         ("compare", "a/requirements.txt", "b/requirements.txt"), 1,
         "torchaudio 2.3.1 -> 2.7.0: not reviewed: the knowledge base has no knowledge of torchaudio"),
    # item 1: the wheel findings follow the entry's kind
    Case("python 3.8 and torch 2.5.0", {"a/requirements.txt": "torch==2.4.1\n", "b/requirements.txt": "torch==2.5.0\n"},
         ("compare", "a/requirements.txt", "b/requirements.txt", "--python-version", "3.8"), 1,
         "(torch-python-3-8-dropped)"),
    Case("python 3.8 and torch 2.1.2", {"a/requirements.txt": "torch==2.0.1\n", "b/requirements.txt": "torch==2.1.2\n"},
         ("compare", "a/requirements.txt", "b/requirements.txt", "--python-version", "3.8"), 0,
         "torch 2.0.1 -> 2.1.2", never=("torch-python-3-8-dropped",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path, monkeypatch) -> None:
    for name, content in case.files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content.replace("{tmp}", str(tmp_path)), "utf-8")
    monkeypatch.chdir(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in case.args]
    start = time.perf_counter()
    result = CliRunner().invoke(app, args, env={**os.environ, **case.env})
    elapsed = time.perf_counter() - start
    output = result.output
    assert "Traceback" not in output
    assert result.exit_code == case.exit, output
    assert case.says in output, output
    for secret in case.never:
        assert secret not in output, output
    assert elapsed < case.within
    assert not (tmp_path / "pwned").exists()
