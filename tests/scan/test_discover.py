"""Which files a scan reads, and what it skips with a reason."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import scan_project
from auditor.scan.config import ScanConfig
from auditor.scan.discover import discover

FLOOR = "torch-floor-divide-rounds-toward-floor"
CODE = "import torch\nt = torch.arange(-4, 4)\nu = t // 2\n"


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def names(root: Path, config: ScanConfig | None = None) -> list[str]:
    return [p.relative_to(root).as_posix() for p in discover(root, config).files]


def test_environments_and_installed_packages_are_passed_over_once_each_by_their_layout(tmp_path: Path) -> None:
    tree(tmp_path, {
        "train.py": "", "pkg/model.py": "", "notes.ipynb": "{}", "README.md": "",
        ".git/hooks/x.py": "", "__pycache__/x.py": "",
        ".venv/pyvenv.cfg": "", ".venv/lib/x.py": "", ".venv/lib/y.py": "",
        "myenv/pyvenv.cfg": "", "myenv/lib/python3.11/site-packages/torch/x.py": "",
        "conda/conda-meta/history": "", "conda/lib/x.py": "",
        "vendor/site-packages/x.py": "", ".ipynb_checkpoints/notes-checkpoint.ipynb": "{}",
    })
    assert names(tmp_path) == ["notes.ipynb", "pkg/model.py", "train.py"]
    assert [(s.path, s.reason, s.kind) for s in discover(tmp_path).skipped] == [
        (".ipynb_checkpoints", "Jupyter's autosave copies (.ipynb_checkpoints)", "folder"),
        (".venv", "a virtual environment (it holds pyvenv.cfg)", "folder"),
        ("conda", "a conda environment (it holds conda-meta)", "folder"),
        ("myenv", "a virtual environment (it holds pyvenv.cfg)", "folder"),
        ("vendor/site-packages", "installed packages (site-packages)", "folder"),
    ]


def test_folders_named_like_environments_or_build_output_are_packages_like_any_other(tmp_path: Path) -> None:
    """An RL project's `env/`, a model's `build/`, distributed helpers in `dist/`: no pyvenv.cfg,
    no ignore rule, so they are read."""
    tree(tmp_path, {"env/atari.py": CODE, "build/model.py": CODE, "dist/launch.py": CODE, "venv/x.py": "",
                    "pkg.egg-info/x.py": "", "train.py": CODE})
    assert names(tmp_path) == ["build/model.py", "dist/launch.py", "env/atari.py", "pkg.egg-info/x.py", "train.py",
                               "venv/x.py"]
    assert discover(tmp_path).skipped == []


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


# --- in a git work tree: git's own view ------------------------------------------------------------


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root, check=True,
                   capture_output=True)


def repository(root: Path, files: dict[str, str]) -> Path:
    tree(root, files)
    git(root, "init", "-q")
    return root


def test_tracked_files_an_ignore_pattern_matches_are_read_as_git_keeps_them(tmp_path: Path) -> None:
    """A `models/` rule meant for weights matches `src/models/factory.py` too, and notebooks added
    with `git add -f` under `*.ipynb`: git never ignores a tracked file, nor does the scan."""
    root = repository(tmp_path, {
        ".gitignore": "models/\n*.ipynb\n", "train.py": CODE, "src/models/factory.py": CODE,
        "notebooks/explore.ipynb": "{}", "models/weights.py": "", "scratch.ipynb": "{}",
    })
    git(root, "add", ".gitignore", "train.py")
    git(root, "add", "-f", "src/models/factory.py", "notebooks/explore.ipynb")
    git(root, "commit", "-qm", "start")
    found = discover(root)
    assert found.relatives == ["notebooks/explore.ipynb", "src/models/factory.py", "train.py"]
    assert [(s.path, s.reason, s.kind) for s in found.skipped] == [
        ("models", "ignored by .gitignore", "folder"),  # untracked: listed once, as a folder
        ("scratch.ipynb", "ignored by .gitignore", "file"),
    ]


def test_git_lists_packages_named_like_build_output_and_passes_over_environments(tmp_path: Path) -> None:
    root = repository(tmp_path, {
        ".gitignore": ".venv/\n__pycache__/\n", "env/atari.py": CODE, "build/model.py": CODE, "dist/launch.py": CODE,
        ".venv/pyvenv.cfg": "", ".venv/lib/python3.11/site-packages/torch/x.py": "", ".venv/bin/y.py": "",
        "tools/pyvenv.cfg": "", "tools/lib/z.py": "",  # an environment nobody ignored: listed once all the same
        "__pycache__/x.cpython-311.pyc": "", "untracked.py": CODE,
    })
    git(root, "add", "env", "build", "dist", ".gitignore")
    git(root, "commit", "-qm", "start")
    found = discover(root)
    assert found.relatives == ["build/model.py", "dist/launch.py", "env/atari.py", "untracked.py"]
    assert [(s.path, s.reason, s.kind) for s in found.skipped] == [
        (".venv", "a virtual environment (it holds pyvenv.cfg)", "folder"),
        ("tools", "a virtual environment (it holds pyvenv.cfg)", "folder"),
    ]


def test_excludes_nested_repositories_and_missing_files_in_a_git_work_tree(tmp_path: Path) -> None:
    root = repository(tmp_path, {"a.py": CODE, "legacy/old.py": CODE, "gen_pb2.py": "", "gone.py": ""})
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    (root / "gone.py").unlink()
    repository(root / "vendored", {"lib.py": CODE, ".gitignore": "skip.py\n", "skip.py": ""})
    found = discover(root, ScanConfig(exclude=("legacy/", "*_pb2.py")))
    assert found.relatives == ["a.py", "vendored/lib.py"]
    assert [(s.path, s.reason, s.kind) for s in found.skipped] == [
        ("gen_pb2.py", "excluded by [tool.auditor] exclude", "file"),
        ("gone.py", "tracked by git but missing from the work tree", "file"),
        ("legacy", "excluded by [tool.auditor] exclude", "folder"),
        ("vendored/skip.py", "ignored by .gitignore", "file"),
    ]


def test_an_ignored_folder_is_listed_when_it_holds_a_source_or_is_too_big_to_tell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import auditor.scan.discover as discovery

    monkeypatch.setattr(discovery, "SEARCHED", 5)
    root = repository(tmp_path, {
        ".gitignore": "data/\noutputs/\nwandb/\n.mypy_cache/\n", "train.py": CODE, "data/a.png": "", "data/b.png": "",
        **{f".mypy_cache/3.11/m{i}.json": "" for i in range(8)},  # never searched: a cache holds no sources
        "wandb/run-1/files/code/train.py": CODE, **{f"outputs/step{i}.pt": "" for i in range(8)},
    })
    assert [(s.path, s.reason, s.kind) for s in discover(root).skipped] == [
        ("outputs", "ignored by .gitignore (too big to search for sources)", "folder"),
        ("wandb", "ignored by .gitignore", "folder"),
    ]
    (root / ".git").rename(root / "not-git")  # the walk, with pathspec, tells the same
    assert [(s.path, s.reason, s.kind) for s in discover(root).skipped] == [
        ("outputs", "ignored by .gitignore (too big to search for sources)", "folder"),
        ("wandb", "ignored by .gitignore", "folder"),
    ]


def test_a_folder_git_ignores_is_read_when_it_is_the_one_asked_for(tmp_path: Path) -> None:
    root = repository(tmp_path, {".gitignore": "generated/\n", "generated/model.py": CODE, "generated/sub/x.py": ""})
    assert names(root / "generated") == ["model.py", "sub/x.py"]
    assert [(s.path, s.kind) for s in discover(root).skipped] == [("generated", "folder")]
