"""Hostile and broken inputs, driven through the real CLI: each row writes files into a fresh
folder, runs `auditor ARGS` there and checks the exit code, a part of the message, and what the
output must never contain (secrets, file content that is no requirement).

To add a case, add a row: `Case(id, files, args, exit, says, never)`. `{tmp}` in files and args is
the folder; a file's text may be bytes. With `commits`, the folder is a git repository: `files`
is its first commit, each entry of `commits` one more, and `{base}`, `{head}` (and `{head12}` in
`says`) name the first and the last.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app


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
    commits: tuple[dict[str, str | bytes], ...] = ()


OLD = "torch==2.3.1\n"
NEW = "torch==2.4.0\n"
SHADOW = "root:$6$saltsalt$Q8sEcReThAsH:19000:0:99999:7:::\n"
TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

CASES = [
    # item 4: empty locks are errors naming the file, not locks without packages
    *(
        Case(f"empty {name}", {f"a/{name}": "torch==1.12.1\n" if name.endswith(".txt") else "", f"b/{name}": " \n"},
             ("lock", "show", f"b/{name}"), 2, f"b/{name}:1: empty file")
        for name in ("poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "pylock.toml", "conda-lock.yml",
                     "environment.yml", "requirements.txt")
    ),
    Case("empty new side of compare", {"a/poetry.lock": "", "b/uv.lock": ""},
         ("compare", "a/poetry.lock", "b/uv.lock"), 2, "a/poetry.lock:1: empty file"),
    # item 9: dotted TOML keys are bounded before parsing
    Case("pylock with 100,000 dotted key parts", {"pylock.toml": "a" + ".a" * 100_000 + " = 1\n"},
         ("lock", "show", "pylock.toml"), 2, "pylock.toml:1: TOML key with more than 64", within=2.0),
    Case("uv.lock with many dotted keys", {"uv.lock": "".join(f"k{i}" + ".a" * 40 + " = 1\n" for i in range(5000))},
         ("lock", "show", "uv.lock"), 2, "too many dotted TOML key parts", within=2.0),
    Case("--config with a long dotted key", {"r1/requirements.txt": OLD, "r2/requirements.txt": NEW,
                                             "cfg.toml": "a" + ".b" * 5000 + " = 1\n"},
         ("compare", "r1/requirements.txt", "r2/requirements.txt", "--project", ".", "--config", "cfg.toml"),
         2, "cfg.toml:1: TOML key with more than 64", within=2.0),
    Case("project pyproject with a long dotted key", {"r1/requirements.txt": OLD, "r2/requirements.txt": NEW,
                                                      "p/pyproject.toml": "[tool]\n" + "x" + ".y" * 5000 + " = 1\n",
                                                      "p/m.py": "import torch\n"},
         ("compare", "r1/requirements.txt", "r2/requirements.txt", "--project", "p"),
         2, "pyproject.toml:2: TOML key with more than 64", within=2.0),
    # item 10: secrets never reach messages or reports
    Case("URL requirement with credentials", {"requirements.txt": "https://user:TOKEN123@host\n"},
         ("lock", "show", "requirements.txt"), 2, "https://***@host", never=("TOKEN123", "user:")),
    Case("wheel URL with credentials", {"requirements.txt":
                                        "https://user:TOKEN123@host/w/torch-2.4.0-cp311-cp311-linux_x86_64.whl\n"},
         ("lock", "show", "requirements.txt"), 0, "torch 2.4.0  from https://***@host/w/", never=("TOKEN123",)),
    Case("name @ URL with credentials", {"requirements.txt": "tv @ https://u:TOKEN123@host/tv.zip\ntorch==2.4.0\n"},
         ("lock", "show", "requirements.txt", "-f", "json"), 0, "https://***@host/tv.zip", never=("TOKEN123",)),
    Case("git+https with credentials", {"requirements.txt":
                                        "git+https://u:TOKEN123@github.com/o/repo.git@v1\ntorch==2.4.0\n"},
         ("lock", "show", "requirements.txt"), 0, "repo unpinned", never=("TOKEN123", "u:")),
    Case("index URL with credentials", {"requirements.txt": "--index-url https://me:TOKEN123@idx/simple\ntorch==2.4.0\n"},
         ("lock", "show", "requirements.txt"), 0, "https://***@idx/simple", never=("TOKEN123",)),
    Case("-c of a file that is no requirements file", {"shadow": SHADOW, "requirements.txt": "-c {tmp}/shadow\n" + NEW},
         ("lock", "show", "requirements.txt"), 2, "is not a requirements file", never=("$6$", "saltsalt", "Q8sE")),
    Case("-r of a file holding a token", {"secret.txt": TOKEN + "\n", "requirements.txt": "-r secret.txt\n" + NEW},
         ("lock", "show", "requirements.txt"), 2, "secret.txt:1: this line looks like a credential", never=(TOKEN, "ghp_")),
    Case("-r of a private key", {"id.txt": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n",
                                 "requirements.txt": "-r id.txt\n" + NEW},
         ("lock", "show", "requirements.txt"), 2, "id.txt:1: not a requirements-file option", never=("b3BlbnNzaC1",)),
    Case("a bad line quotes one character", {"requirements.txt": "torch==2.4.0\nhunter:Pa55word\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt:2: not a requirement", never=("Pa55word",)),
    Case("an unknown option line", {"requirements.txt": "--frobnicate secretvalue\n" + NEW},
         ("lock", "show", "requirements.txt"), 2, "not a requirements-file option: '--frobnicate'",
         never=("secretvalue",)),
    Case("credentials in a lock diff", {"a/requirements.txt": "torch @ https://u:TOKEN123@h/torch-2.3.1-py3-none-any.whl\n",
                                        "b/requirements.txt": "torch @ https://u:TOKEN123@h/torch-2.4.0-py3-none-any.whl\n"},
         ("lock", "diff", "a/requirements.txt", "b/requirements.txt"), 0, "torch: 2.3.1 -> 2.4.0", never=("TOKEN123",)),
    # item 5: a pin that becomes unpinned
    Case("unpinned is not removed", {"a/requirements.txt": "torchvision==0.18.1\n", "b/requirements.txt": "torchvision\n"},
         ("lock", "diff", "a/requirements.txt", "b/requirements.txt"), 1, "0.18.1 -> unpinned (unpinned)",
         never=("removed",)),
    # further paths: numbers too long for int(), NUL bytes late in a file, include link loops,
    # includes that fan out exponentially
    *(
        Case(f"a 5,000-digit number in {name}", {name: text.replace("N", "9" * 5000)}, ("lock", "show", name), 2,
             f"{name}: invalid {kind}: Exceeds the limit")
        for name, kind, text in (
            ("Pipfile.lock", "JSON", '{"_meta": {"sources": []}, "default": {"torch": {"version": "==2.4.0", "x": N}}}'),
            ("uv.lock", "TOML", 'version = 1\n[[package]]\nname = "torch"\nversion = "2.4.0"\nsize = N\n'),
            ("poetry.lock", "TOML", '[metadata]\nlock-version = "2.0"\n[[package]]\nname = "torch"\nversion = "2.4.0"\nx = N\n'),
            ("conda-lock.yml", "YAML", "version: 1\npackage:\n- name: torch\n  version: 2.4.0\n  x: N\n"),
        )
    ),
    Case("a NUL byte after the first 8 KB", {"requirements.txt": NEW + "#" * 9000 + "\n-r a\0b.txt\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt: binary file"),
    Case("an include that is a link loop", {"requirements.txt": "-r a.txt\n" + NEW}, ("lock", "show", "requirements.txt"),
         2, "requirements.txt:1: included file not found: a.txt", env={"LINK_LOOP": "a.txt b.txt"}),
    Case("includes that fan out exponentially",
         {"requirements.txt": "-r f1.txt\n-r f1.txt\n" + NEW,
          **{f"f{i}.txt": f"-r f{i + 1}.txt\n-r f{i + 1}.txt\n" for i in range(1, 40)}, "f40.txt": "numpy==2.0.0\n"},
         ("lock", "show", "requirements.txt"), 0, "numpy 2.0.0", within=5.0),
    # regular expressions that backtracked quadratically over long runs of spaces
    Case("a requirements line of 200,000 spaces", {"requirements.txt": "torch" + " " * 200_000 + "x\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt:1: not a requirement", within=3.0),
    Case("spaces before a late comment", {"requirements.txt": NEW + "numpy==2.0.0" + " " * 200_000 + "x#\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt:2: not a requirement", within=3.0),
    Case("a conda export of blank continuation lines", {"env.yml": "name: x\ndependencies:\n" + "\n " * 200_000 + "!\n"},
         ("lock", "show", "env.yml"), 2, "env.yml", within=3.0),
    # item 2: what --git reads
    Case("--git sees a bump inside an include",
         {"requirements.txt": "-c constraints/torch.txt\ntorch\n", "constraints/torch.txt": OLD},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}", "-f", "json"), 0, '"to": "2.4.0"',
         commits=({"constraints/torch.txt": NEW},)),
    Case("--git reads pyproject.toml", {"pyproject.toml": '[project]\nname = "p"\nversion = "1"\ndependencies = ["torch==2.3.1"]\n'},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}", "-f", "json"), 0, '"to": "2.4.0"',
         commits=({"pyproject.toml": '[project]\nname = "p"\nversion = "1"\ndependencies = ["torch==2.4.0"]\n'},)),
    # item 13: blobs get the checks files get, and name the side they come from
    Case("--git with a non-UTF-8 blob", {"requirements.txt": OLD},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}"), 2, "{head12}:requirements.txt:2: not UTF-8",
         commits=({"requirements.txt": NEW.encode() + b"\xff\n"},)),
    Case("--git with a conflicted blob", {"requirements.txt": OLD},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}"), 2, "{head12}:requirements.txt:1: unresolved merge",
         commits=({"requirements.txt": "<<<<<<< ours\n" + NEW + "=======\n" + OLD + ">>>>>>> theirs\n"},)),
    Case("--git with an include out of the repository", {"requirements.txt": OLD},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}", "-f", "json"), 0,
         "the include /etc/passwd (requirements.txt:1) lies outside the repository: not read",
         never=("root:",), commits=({"requirements.txt": "-r /etc/passwd\n" + NEW},)),
    Case("--git with an empty lock", {"uv.lock": 'version = 1\n[[package]]\nname = "torch"\nversion = "2.3.1"\n'},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}"), 2, "{head12}:uv.lock:1: empty file",
         commits=({"uv.lock": ""},)),
    # item 13: revisions never reach git as options
    Case("--git with an option as base", {}, ("compare", "--git", "--upload-pack=touch {tmp}/pwned..HEAD"), 2,
         "not a commit or branch name"),
]


def write(folder: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content.replace("{tmp}", str(folder)), "utf-8")


def commit(folder: Path) -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout

    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
    return git("rev-parse", "HEAD").strip()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path, monkeypatch) -> None:
    write(tmp_path, case.files)
    names = {"tmp": str(tmp_path)}
    if case.commits:
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        names["base"] = commit(tmp_path)
        for files in case.commits:
            write(tmp_path, files)
            names["head"] = commit(tmp_path)
    if "LINK_LOOP" in case.env:
        first, second = case.env["LINK_LOOP"].split()
        (tmp_path / first).symlink_to(second)
        (tmp_path / second).symlink_to(first)
    monkeypatch.chdir(tmp_path)
    args = [a.format(**names) if "{" in a else a for a in case.args]
    start = time.perf_counter()
    result = CliRunner().invoke(app, args, env={**os.environ, **case.env})
    elapsed = time.perf_counter() - start
    output = result.output
    assert "Traceback" not in output
    assert result.exit_code == case.exit, output
    assert case.says.replace("{head12}", names.get("head", "")[:12]) in output, output
    for secret in case.never:
        assert secret not in output, output
    assert elapsed < case.within
    assert not (tmp_path / "pwned").exists()
