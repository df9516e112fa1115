"""`auditor fix --write` on real files: byte for byte outside the rewritten lines (byte-order
mark, CR, CRLF and mixed line endings, tabs, a final newline or none, a notebook's JSON layout),
the `--diff` that `git apply` turns into the same bytes, and all or nothing: a file that cannot
be written leaves every file as it was, exit 2 naming it."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.errors import FixError
from auditor.fix.apply import fix_project
from auditor.fix.writer import write
from auditor.knowledge.base import KnowledgeBase
from auditor.pipeline import scan

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
OLD, NEW = b"torch.floor_divide(a, b)", b"torch.div(a, b, rounding_mode='trunc')"
BOM = b"\xef\xbb\xbf"

# each source holds one call the keep-old fix of torch 1.12 -> 1.13 rewrites
SOURCES = {
    "bom_crlf.py": BOM + b"import torch; x = torch.floor_divide(a, b)\r\n\r\ndef f(a, b):\r\n\treturn 1\r\n",
    "cr_only.py": b"import torch\r\rdef f(a, b):\r\treturn torch.floor_divide(a, b)\r",
    "mixed.py": b"import torch\r\n\ndef f(a, b):\r\treturn torch.floor_divide(a, b)\r\n\tpass\n",
    "no_final_newline.py": b"import torch\n\ndef f(a, b):\n\treturn torch.floor_divide(a, b)",
    "crlf_no_final_newline.py": b"import torch\r\n\r\ndef f(a, b):\r\n\treturn torch.floor_divide(a, b)",
    "form_feed.py": b"import torch\n\x0c\ndef f(a, b):\n    return torch.floor_divide(a, b)  # \xe2\x80\xa8 \xc3\xa9\n",
}


def _notebook(source: str) -> str:
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# Título"), nbformat.v4.new_code_cell(source)]
    return nbformat.writes(book)


_TEXT = _notebook("import torch\r\n\r\ndef f(a, b):\r\n\treturn torch.floor_divide(a, b)  # é\r\n")
NOTEBOOKS = {
    "as_nbformat_writes.ipynb": _TEXT.encode("utf-8"),
    "bom_crlf.ipynb": BOM + _TEXT.replace("\n", "\r\n").encode("utf-8"),
    "ascii_indent_4.ipynb": (json.dumps(json.loads(_TEXT), indent=4) + "\n").encode("ascii"),
}


def _fix(project: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["fix", "--from", "1.12.1", "--to", "1.13.0", str(project), "--keep-old", "--no-cache",
                                 *args])
    return result.exit_code, result.output


def _files(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(project.iterdir())}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    for name, data in SOURCES.items():
        (root / name).write_bytes(data)
    return root


def test_write_keeps_every_byte_of_a_module_but_the_rewritten_call(project: Path) -> None:
    code, out = _fix(project, "--write")
    assert code == 0, out
    for name, data in SOURCES.items():
        assert data.count(OLD) == 1
        assert (project / name).read_bytes() == data.replace(OLD, NEW), name


def test_write_keeps_every_byte_of_a_notebook_but_the_rewritten_call(tmp_path: Path) -> None:
    for name, data in NOTEBOOKS.items():
        (tmp_path / name).write_bytes(data)
    code, out = _fix(tmp_path, "--write")
    assert code == 0, out
    for name, data in NOTEBOOKS.items():
        assert data.count(OLD) == 1
        assert (tmp_path / name).read_bytes() == data.replace(OLD, NEW), name


def test_the_diff_applied_by_git_gives_the_bytes_written(project: Path, tmp_path: Path) -> None:
    patch = tmp_path / "fix.patch"
    code, out = _fix(project, "--diff", "--output", str(patch))
    assert code == 0, out
    for name in SOURCES:
        assert f"--- a/{name}\n" in patch.read_text("utf-8")
    modules = [f"--include={name}" for name in SOURCES]  # a notebook's diff is of its cells' sources
    subprocess.run(["git", "apply", *modules, "--whitespace=nowarn", str(patch)], cwd=project, check=True)
    applied = {name: (project / name).read_bytes() for name in SOURCES}
    assert applied == {name: data.replace(OLD, NEW) for name, data in SOURCES.items()}
    for name, data in SOURCES.items():
        (project / name).write_bytes(data)
    assert _fix(project, "--write")[0] == 0
    assert {name: (project / name).read_bytes() for name in SOURCES} == applied


def test_a_read_only_file_leaves_every_file_as_it_was(project: Path) -> None:
    before = _files(project)
    (project / "mixed.py").chmod(0o444)
    code, out = _fix(project, "--write")
    assert code == 2, out
    assert f"auditor: {project / 'mixed.py'}: cannot write: the file is read-only; nothing was written" in out
    assert "Traceback" not in out
    assert _files(project) == before  # no file rewritten, no temporary file left


def test_a_file_changed_since_it_was_read_is_not_overwritten(project: Path, kb: KnowledgeBase) -> None:
    fixed = fix_project(scan(project, "1.12.1", "1.13.0", kb), project, "keep-old")
    assert len(fixed.changed) == len(SOURCES)
    (project / "no_final_newline.py").write_bytes(SOURCES["no_final_newline.py"] + b"\n# an edit meanwhile\n")
    before = _files(project)
    with pytest.raises(FixError, match="no_final_newline.py: cannot write: changed since it was read"):
        write(fixed, project)
    assert _files(project) == before


def test_the_file_mode_stays(project: Path) -> None:
    (project / "cr_only.py").chmod(0o750)
    code, out = _fix(project, "--write")
    assert code == 0, out
    assert stat.S_IMODE(os.stat(project / "cr_only.py").st_mode) == 0o750
    assert (project / "cr_only.py").read_bytes() == SOURCES["cr_only.py"].replace(OLD, NEW)


def test_a_link_stays_a_link(project: Path) -> None:
    (project / "link.py").symlink_to("mixed.py")
    code, out = _fix(project / "link.py", "--write")
    assert code == 0, out
    assert (project / "link.py").is_symlink()
    assert (project / "mixed.py").read_bytes() == SOURCES["mixed.py"].replace(OLD, NEW)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="sets a file size limit in the child")
def test_a_file_that_cannot_be_staged_leaves_every_file_as_it_was(project: Path) -> None:
    """A real write failure, even for root: a file size limit (RLIMIT_FSIZE; Python ignores
    SIGXFSZ, so the write fails with EFBIG) below the size of one rewritten file only."""
    import resource

    big = project / "zz_big.py"
    big.write_bytes(SOURCES["mixed.py"] + b"# padding\n" * 400)
    before = _files(project)
    limit = max(len(data) for data in SOURCES.values()) + 100
    done = subprocess.run(
        [sys.executable, "-m", "auditor", "fix", "--from", "1.12.1", "--to", "1.13.0", str(project), "--keep-old",
         "--no-cache", "--write"],
        check=False, capture_output=True, text=True, cwd=project.parent, env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"auditor: {big}: cannot write: File too large; nothing was written\n"
    assert _files(project) == before


def test_a_rename_that_fails_puts_back_the_files_already_replaced(
    project: Path, kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one step no real condition reaches on demand (the checks come first): the third
    rename fails, injected; the two files already replaced get their bytes back."""
    fixed = fix_project(scan(project, "1.12.1", "1.13.0", kb), project, "keep-old")
    before = _files(project)
    renames = []

    def replace(source: str, target: str) -> None:
        renames.append(target)
        if len(renames) == 3:
            raise OSError(errno.EIO, "Input/output error")
        os.rename(source, target)

    monkeypatch.setattr(os, "replace", replace)
    third = sorted(SOURCES)[2]
    with pytest.raises(FixError, match=f"{third}: cannot write: Input/output error; nothing was written"):
        write(fixed, project)
    assert len(renames) == 5  # two undone after the third failed
    assert _files(project) == before
