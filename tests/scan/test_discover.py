"""Which files a scan reads, and what it skips with a reason."""

import os
import sys
from pathlib import Path

import pytest

from auditor.knowledge import KnowledgeBase
from auditor.scan import scan_project
from auditor.scan.config import ScanConfig
from auditor.scan.discover import discover

FLOOR = "torch-floor-divide-rounds-toward-floor"
CODE = "import torch\nt = torch.arange(4)\nu = t // 2\n"


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def names(root: Path, config: ScanConfig | None = None) -> list[str]:
    return [p.relative_to(root).as_posix() for p in discover(root, config).files]


def test_environments_caches_and_builds_are_skipped(tmp_path: Path) -> None:
    tree(tmp_path, {
        "train.py": "", "pkg/model.py": "", "notes.ipynb": "{}", "README.md": "",
        ".git/hooks/x.py": "", ".venv/lib/x.py": "", "venv/x.py": "", "build/lib/x.py": "",
        "myenv/pyvenv.cfg": "", "myenv/lib/python3.11/site-packages/torch/x.py": "",
        "conda/conda-meta/history": "", "conda/lib/x.py": "",
        "vendor/site-packages/x.py": "", "pkg.egg-info/x.py": "", "__pycache__/x.py": "",
        ".ipynb_checkpoints/notes-checkpoint.ipynb": "{}",
    })
    assert names(tmp_path) == ["notes.ipynb", "pkg/model.py", "train.py"]


def test_gitignore_files_are_respected_at_every_level(tmp_path: Path) -> None:
    tree(tmp_path, {
        ".gitignore": "outputs/\n*_scratch.py\n!keep_scratch.py\n",
        "outputs/run.py": "", "a_scratch.py": "", "keep_scratch.py": "", "main.py": "",
        "sub/.gitignore": "generated.py\n", "sub/generated.py": "", "sub/real.py": "",
        "other/generated.py": "",
    })
    assert names(tmp_path) == ["keep_scratch.py", "main.py", "other/generated.py", "sub/real.py"]
    everything = names(tmp_path, ScanConfig(respect_gitignore=False))
    assert "outputs/run.py" in everything and "sub/generated.py" in everything


def test_exclude_globs(tmp_path: Path) -> None:
    tree(tmp_path, {"legacy/old.py": "", "src/new.py": "", "src/gen_pb2.py": "", "nb/scratch_1.ipynb": "{}"})
    config = ScanConfig(exclude=("legacy/", "*_pb2.py", "nb/scratch_*.ipynb"))
    assert names(tmp_path, config) == ["src/new.py"]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlink_loops_and_outside_links_are_skipped_with_a_reason(tmp_path: Path) -> None:
    project = tree(tmp_path / "project", {"pkg/a.py": CODE})
    outside = tree(tmp_path / "elsewhere", {"b.py": CODE})
    os.symlink(project / "pkg", project / "pkg" / "loop")
    os.symlink(outside, project / "linked")
    os.symlink(project / "missing.py", project / "dangling.py")
    found = discover(project)
    assert [p.relative_to(project).as_posix() for p in found.files] == ["pkg/a.py"]
    reasons = {s.path: s.reason for s in found.skipped}
    assert reasons == {
        "dangling.py": "broken symlink",
        "linked": "symlink leads outside the project",
        "pkg/loop": "symlink loop: leads back to pkg",
    }



@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_links_to_files_outside_and_looping_links_are_skipped_through_the_cli(tmp_path: Path) -> None:
    """The scan follows no link out of the project, and lists every link it could not follow."""
    import json

    from typer.testing import CliRunner

    from auditor.cli import app

    project = tree(tmp_path / "project", {"own.py": CODE, "pkg/inner.py": CODE})
    outside = tree(tmp_path / "elsewhere", {"secret.py": CODE, "notes.txt": ""})
    os.symlink(outside / "secret.py", project / "borrowed.py")
    os.symlink(project / "pkg" / "inner.py", project / "alias.py")  # inside: scanned
    os.symlink("self.py", project / "self.py")
    os.symlink("ring_b.py", project / "ring_a.py")
    os.symlink("ring_a.py", project / "ring_b.py")
    os.symlink("gone", project / "data")  # no suffix: may have been a folder
    os.symlink(outside / "notes.txt", project / "notes.txt")  # not a source file: no word
    result = CliRunner().invoke(app, ["scan", str(project), "--from", "1.12.1", "--to", "1.13.0", "-f", "json",
                                      "--no-cache"])
    document = json.loads(result.stdout)
    assert sorted({f["path"] for f in document["findings"]}) == ["alias.py", "own.py", "pkg/inner.py"]
    assert {s["path"]: s["reason"] for s in document["skipped"]} == {
        "borrowed.py": "symlink leads outside the project",
        "self.py": "symlink loop: it leads back to itself",
        "ring_a.py": "symlink loop: it leads back to itself",
        "ring_b.py": "symlink loop: it leads back to itself",
        "data": "broken symlink",
    }


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes")
def test_a_named_pipe_called_like_a_source_is_skipped_not_read(tmp_path: Path) -> None:
    """Reading a FIFO nobody writes to waits forever: the scan must never open it."""
    tree(tmp_path, {"own.py": CODE})
    os.mkfifo(tmp_path / "waits.py")
    found = discover(tmp_path)
    assert [p.name for p in found.files] == ["own.py"]
    assert [(s.path, s.reason) for s in found.skipped] == [("waits.py", "not a regular file (a pipe, socket or device)")]

def test_unreadable_and_non_utf8_files_are_skipped_with_a_reason(kb: KnowledgeBase, tmp_path: Path) -> None:
    tree(tmp_path, {"good.py": CODE, "bom.py": "\ufeff" + CODE})
    (tmp_path / "latin.py").write_bytes("# caf\xe9\nimport torch\n".encode("latin-1"))
    (tmp_path / "bad.py").write_text("import torch\ndef f(:\n    t // 2\n", "utf-8")
    findings, skipped = scan_project(tmp_path, [kb.get(FLOOR)])
    assert {(f.path, f.line) for f in findings} == {("bom.py", 3), ("good.py", 3)}
    assert {(s.path, s.reason) for s in skipped} == {
        ("latin.py", "not UTF-8 text"),
        ("bad.py", "line 2: syntax error: invalid syntax"),
    }


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads everything")
def test_an_unreadable_file_is_skipped(kb: KnowledgeBase, tmp_path: Path) -> None:
    path = tree(tmp_path, {"secret.py": CODE}) / "secret.py"
    path.chmod(0)
    try:
        findings, skipped = scan_project(tmp_path, [kb.get(FLOOR)])
    finally:
        path.chmod(0o644)
    assert findings == [] and [s.reason for s in skipped] == ["unreadable: Permission denied"]


def test_discovery_gives_each_files_path_from_the_root(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for name in ("a.py", "pkg/b.py", "pkg/sub/c.ipynb", "pkg/sub/d.txt"):
        (tmp_path / name).write_text("{}" if name.endswith(".ipynb") else "x = 1\n")
    found = discover(tmp_path)
    assert found.relatives == [f.relative_to(tmp_path).as_posix() for f in found.files]
    assert found.relatives == ["a.py", "pkg/b.py", "pkg/sub/c.ipynb"]
    single = discover(tmp_path / "pkg" / "b.py")
    assert single.relatives == ["b.py"]
