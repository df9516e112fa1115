"""Hostile and careless command lines, each with the exit code and the message a user must get.

One table, driven through the real CLI: a new format, option or command joins it with a row.
Exit 2 is the user's input (the message names it), 3 the tool's own failure, never 1 (findings)
and never 0 when nothing was checked.

To add a case, add a row to CASES:

    Case(id, files, args, exit, says, stream=..., never=..., within=..., env=..., commits=..., setup=...)

- `files` ({path: text or bytes}) is written into a fresh folder, which is also the working
  directory of the run; `{tmp}` in a file's text is that folder.
- `args` is the command line after `auditor`; `{tmp}` stands for the folder.
- `exit` is the expected exit code, `says` a part of the message, looked for on `stream`:
  "output" (stdout and stderr as the user sees them, the default), "stderr" or "stdout".
  `{tmp}` and, with `commits`, `{head12}` (the first 12 digits of the last commit) may appear in it.
- `never`: fragments that must appear nowhere in the output (secrets, file content that is no
  requirement).
- `within`: CPU seconds the run may take in this process (10 unless said): a guard against
  inputs that make a parser quadratic, counted in CPU so that a loaded machine does not fail it.
- `env`: variables set for the run, on top of NO_COLOR=1 and COLUMNS=300.
- `commits`: the folder becomes a git repository, `files` its first commit and each entry of
  `commits` one more; `{base}` and `{head}` in `args` name the first and the last.
- `setup`: a function of the folder, only for what files cannot express (an executable, a link
  loop); it runs after the files and commits are written.

Every row also checks that no traceback is printed, that the CLI did not crash, and that nothing
created `pwned` in the folder.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app, handles_errors
from auditor.knowledge.loader import default_directory
from auditor.knowledge.stored import SUBDIRECTORY, _key

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, str | bytes]
    args: tuple[str, ...]
    exit: int
    says: str = ""
    stream: str = "output"  # or "stderr", "stdout"
    never: tuple[str, ...] = ()
    within: float = 10.0  # CPU seconds of this process
    env: dict[str, str] = field(default_factory=dict)
    commits: tuple[dict[str, str | bytes], ...] = ()
    setup: Callable[[Path], None] | None = None


def a_fake_python(tmp: Path) -> None:
    """An executable that answers a Python script with something else."""
    fake = tmp / "python"
    fake.write_text("#!/bin/sh\necho hello\n", "utf-8")
    fake.chmod(0o755)


def a_link_loop(tmp: Path) -> None:
    """a.txt -> b.txt -> a.txt"""
    (tmp / "a.txt").symlink_to("b.txt")
    (tmp / "b.txt").symlink_to("a.txt")


class Pwn:
    """Unpickling this creates `pwned` in the working directory."""

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (Path("pwned"),))


# the example locks and project of the repository
OLD_LOCK = str(ROOT / "examples" / "requirements-old.txt")
NEW_LOCK = str(ROOT / "examples" / "requirements-new.txt")
EXAMPLE_PROJECT = str(ROOT / "examples" / "project")
# one-line requirements files
OLD_PIN = "torch==2.3.1\n"
NEW_PIN = "torch==2.4.0\n"
# secrets that must never be quoted
SHADOW = "root:$6$saltsalt$Q8sEcReThAsH:19000:0:99999:7:::\n"
TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
# the kept knowledge base in a cache folder named `cache`, and a pickle that plants `pwned`
KEPT = f"cache/{SUBDIRECTORY}/{_key(default_directory())}"
PWN = pickle.dumps(Pwn())
# a project with one script, scanned across the 1.13 floor_divide change
ONE_SCRIPT = {"p/m.py": "import torch\n"}
SCAN = ("scan", "p", "--from", "1.12.1", "--to", "1.13.0")

CASES = [
    # item 3: a project that is not there is a typo, not a green audit
    Case("compare-missing-project", {},
         ("compare", OLD_LOCK, NEW_LOCK, "--project", "{tmp}/no-such-dir", "--fail-on", "none"),
         2, "{tmp}/no-such-dir: the project to scan does not exist", stream="stderr"),
    Case("compare-project-under-a-file", {"file": "not a folder\n"},
         ("compare", OLD_LOCK, NEW_LOCK, "--project", "{tmp}/file/sub", "--fail-on", "none"),
         2, "{tmp}/file/sub: the project to scan cannot be read: Not a directory", stream="stderr"),
    Case("compare-project-is-a-device", {},
         ("compare", OLD_LOCK, NEW_LOCK, "--project", "/dev/null", "--fail-on", "none"),
         2, "/dev/null: the project to scan is neither a folder nor a file", stream="stderr"),
    Case("scan-missing-path", {}, ("scan", "{tmp}/missing", "--from", "1.12.1", "--to", "1.13.0"),
         2, "{tmp}/missing: the project to scan does not exist", stream="stderr"),
    Case("scan-missing-path-no-crossed-change", {},
         ("scan", "{tmp}/missing", "--from", "1.13.0", "--to", "1.13.1"),
         2, "{tmp}/missing: the project to scan does not exist", stream="stderr"),
    # item 17: a probe option without --probe is not ignored in silence
    Case("compare-probe-option-without-probe", {},
         ("compare", OLD_LOCK, NEW_LOCK, "--allow-cuda", "--torch-index", ""),
         2, "--torch-index, --allow-cuda: only used with --probe", stream="stderr"),
    Case("probe-unknown-installer", {}, ("probe", "--from", "2.5.0", "--to", "2.6.0", "--installer", "conda"),
         2, "'conda' is not one of 'auto', 'uv', 'pip'", stream="stderr"),
    # item 19: a file the parser refuses for a NUL byte is skipped with its line
    Case("scan-file-with-a-nul-byte", {"nul.py": b"import torch\nx = torch.floor_divide(a, 2)\x00\n"},
         ("scan", "{tmp}", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "skipped nul.py: line 2: a NUL byte: not Python source", stream="stdout"),
    # found while looking: nothing checked is said, a name nobody knows is an error
    Case("scan-folder-without-python", {"folder/README.md": "no Python here\n"},
         ("scan", "{tmp}/folder", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "skipped .: no .py or .ipynb file to scan in this folder", stream="stdout"),
    Case("kb-list-unknown-package", {}, ("kb", "list", "--package", "nosuch"),
         2, "the knowledge base knows no package 'nosuch' (it knows torch", stream="stderr"),
    Case("kb-list-unknown-package-in-a-range", {}, ("kb", "list", "--package", "nosuch", "--from", "1", "--to", "2"),
         2, "the knowledge base knows no package 'nosuch'", stream="stderr"),
    Case("kb-verify-unknown-package", {}, ("kb", "verify", "--package", "nosuch"),
         2, "the knowledge base knows no package 'nosuch'", stream="stderr"),
    Case("kb-list-unknown-kind", {}, ("kb", "list", "--kind", "nosuch"),
         2, "--kind: no entry is of kind 'nosuch' (kinds: ", stream="stderr"),
    Case("probe-negative-timeout", {}, ("probe", "--from", "2.5.0", "--to", "2.6.0", "--timeout", "-1"),
         2, "Invalid value for '--timeout'", stream="stderr"),
    Case("probe-negative-memory-limit", {}, ("probe", "--from", "2.5.0", "--to", "2.6.0", "--memory-limit", "-5"),
         2, "Invalid value for '--memory-limit'", stream="stderr"),
    Case("compare-unknown-format", {}, ("compare", OLD_LOCK, NEW_LOCK, "--format", "xml"),
         2, "Invalid value for '--format'", stream="stderr"),
    Case("compare-output-in-a-missing-folder", {}, ("compare", OLD_LOCK, NEW_LOCK, "--output", "{tmp}/missing/out.txt"),
         2, "{tmp}/missing/out.txt: cannot write: No such file or directory", stream="stderr"),
    Case("compare-output-is-a-folder", {}, ("compare", OLD_LOCK, NEW_LOCK, "--output", "{tmp}"),
         2, "{tmp}: cannot write: Is a directory", stream="stderr"),
    Case("lock-show-a-folder", {}, ("lock", "show", "{tmp}"), 2, "{tmp}: cannot read: Is a directory", stream="stderr"),
    Case("lock-show-an-empty-file", {}, ("lock", "show", "/dev/null"),
         2, "/dev/null:1: empty file: a lock lists its packages, this one has none", stream="stderr"),
    Case("compare-python-version-not-a-version", {}, ("compare", OLD_LOCK, NEW_LOCK, "--python-version", "abc"),
         2, "Invalid value for '--python-version': 'abc' is not a Python version such as 3.11", stream="stderr"),
    Case("scan-python-version-not-a-version", {},
         ("scan", EXAMPLE_PROJECT, "--from", "1.12.1", "--to", "1.13.0", "--python-version", "3.x"),
         2, "'3.x' is not a Python version", stream="stderr"),
    Case("scan-config-ignores-an-unknown-id",
         {"train.py": "import torch\n",
          "pyproject.toml": '[tool.auditor]\nignore = ["torch-floor-divide-rounds-toward-flor"]\n'},
         ("scan", "{tmp}", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "note: {tmp}/pyproject.toml: ignore names no knowledge entry 'torch-floor-divide-rounds-toward-flor'; "
         "it ignores nothing", stream="stdout"),
    Case("scan-notebook-whose-cells-are-not-a-list",
         {"odd.ipynb": '{"nbformat": 4, "cells": "import torch; torch.floor_divide(a, 2)"}'},
         ("scan", "{tmp}", "--from", "1.12.1", "--to", "1.13.0", "--no-cache"),
         0, "skipped odd.ipynb: not a notebook: its cells are a str, not a list", stream="stdout"),
    # item 8: faults that are the user's input are exit 2 with the reason, not a crash
    Case("probe-cache-dir-under-a-file", {"file": "not a folder\n"},
         ("probe", "--from", "2.5.0", "--to", "2.6.0", "--cache-dir", "{tmp}/file/c"),
         2, "{tmp}/file/c: cannot keep probe environments here: Not a directory", stream="stderr"),
    Case("probe-env-that-is-not-python", {},
         ("probe", "--from", "2.5.0", "--to", "2.6.0", "--no-cache", "--env-old", "{tmp}/python", "--env-new", "{tmp}/python"),
         2, "{tmp}/python: not a Python interpreter (it replied 'hello' to a Python script)", stream="stderr",
         setup=a_fake_python),
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
    Case("--config with a long dotted key", {"r1/requirements.txt": OLD_PIN, "r2/requirements.txt": NEW_PIN,
                                             "cfg.toml": "a" + ".b" * 5000 + " = 1\n"},
         ("compare", "r1/requirements.txt", "r2/requirements.txt", "--project", ".", "--config", "cfg.toml"),
         2, "cfg.toml:1: TOML key with more than 64", within=2.0),
    Case("project pyproject with a long dotted key", {"r1/requirements.txt": OLD_PIN, "r2/requirements.txt": NEW_PIN,
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
    Case("-c of a file that is no requirements file", {"shadow": SHADOW, "requirements.txt": "-c {tmp}/shadow\n" + NEW_PIN},
         ("lock", "show", "requirements.txt"), 2, "is not a requirements file", never=("$6$", "saltsalt", "Q8sE")),
    Case("-r of a file holding a token", {"secret.txt": TOKEN + "\n", "requirements.txt": "-r secret.txt\n" + NEW_PIN},
         ("lock", "show", "requirements.txt"), 2, "secret.txt:1: this line looks like a credential", never=(TOKEN, "ghp_")),
    Case("-r of a private key", {"id.txt": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n",
                                 "requirements.txt": "-r id.txt\n" + NEW_PIN},
         ("lock", "show", "requirements.txt"), 2, "id.txt:1: not a requirements-file option", never=("b3BlbnNzaC1",)),
    Case("a bad line quotes one character", {"requirements.txt": "torch==2.4.0\nhunter:Pa55word\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt:2: not a requirement", never=("Pa55word",)),
    Case("an unknown option line", {"requirements.txt": "--frobnicate secretvalue\n" + NEW_PIN},
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
    Case("a NUL byte after the first 8 KB", {"requirements.txt": NEW_PIN + "#" * 9000 + "\n-r a\0b.txt\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt: binary file"),
    Case("an include that is a link loop", {"requirements.txt": "-r a.txt\n" + NEW_PIN},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt:1: included file not found: a.txt",
         setup=a_link_loop),
    Case("includes that fan out exponentially",
         {"requirements.txt": "-r f1.txt\n-r f1.txt\n" + NEW_PIN,
          **{f"f{i}.txt": f"-r f{i + 1}.txt\n-r f{i + 1}.txt\n" for i in range(1, 40)}, "f40.txt": "numpy==2.0.0\n"},
         ("lock", "show", "requirements.txt"), 0, "numpy 2.0.0", within=5.0),
    # regular expressions that backtracked quadratically over long runs of spaces
    Case("a requirements line of 200,000 spaces", {"requirements.txt": "torch" + " " * 200_000 + "x\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt:1: not a requirement", within=3.0),
    Case("spaces before a late comment", {"requirements.txt": NEW_PIN + "numpy==2.0.0" + " " * 200_000 + "x#\n"},
         ("lock", "show", "requirements.txt"), 2, "requirements.txt:2: not a requirement", within=3.0),
    Case("a conda export of blank continuation lines", {"env.yml": "name: x\ndependencies:\n" + "\n " * 200_000 + "!\n"},
         ("lock", "show", "env.yml"), 2, "env.yml", within=3.0),
    # item 2: what --git reads
    Case("--git sees a bump inside an include",
         {"requirements.txt": "-c constraints/torch.txt\ntorch\n", "constraints/torch.txt": OLD_PIN},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}", "-f", "json"), 0, '"to": "2.4.0"',
         commits=({"constraints/torch.txt": NEW_PIN},)),
    Case("--git reads pyproject.toml", {"pyproject.toml": '[project]\nname = "p"\nversion = "1"\ndependencies = ["torch==2.3.1"]\n'},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}", "-f", "json"), 0, '"to": "2.4.0"',
         commits=({"pyproject.toml": '[project]\nname = "p"\nversion = "1"\ndependencies = ["torch==2.4.0"]\n'},)),
    # item 13: blobs get the checks files get, and name the side they come from
    Case("--git with a non-UTF-8 blob", {"requirements.txt": OLD_PIN},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}"), 2, "{head12}:requirements.txt:2: not UTF-8",
         commits=({"requirements.txt": NEW_PIN.encode() + b"\xff\n"},)),
    Case("--git with a conflicted blob", {"requirements.txt": OLD_PIN},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}"), 2, "{head12}:requirements.txt:1: unresolved merge",
         commits=({"requirements.txt": "<<<<<<< ours\n" + NEW_PIN + "=======\n" + OLD_PIN + ">>>>>>> theirs\n"},)),
    Case("--git with an include out of the repository", {"requirements.txt": OLD_PIN},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}", "-f", "json"), 0,
         "the include /etc/passwd (requirements.txt:1) lies outside the repository: not read",
         never=("root:",), commits=({"requirements.txt": "-r /etc/passwd\n" + NEW_PIN},)),
    Case("--git with an empty lock", {"uv.lock": 'version = 1\n[[package]]\nname = "torch"\nversion = "2.3.1"\n'},
         ("compare", "--git", "{base}..{head}", "--project", "{tmp}"), 2, "{head12}:uv.lock:1: empty file",
         commits=({"uv.lock": ""},)),
    # item 13: revisions never reach git as options
    Case("--git with an option as base", {}, ("compare", "--git", "--upload-pack=touch {tmp}/pwned..HEAD"), 2,
         "not a commit or branch name"),
    # item 11: the kept knowledge base is JSON; a planted pickle is data that is damaged, not code
    Case("pickle planted as the kept knowledge base", {**ONE_SCRIPT, f"{KEPT}.json": PWN, f"{KEPT}.pickle": PWN},
         (*SCAN, "--cache-dir", "cache"), 0, "is damaged"),
    Case("cache dir that is a file", {**ONE_SCRIPT, "cache": "not a directory"},
         (*SCAN, "--cache-dir", "cache"), 0, "note: the scan cache in cache/scan cannot be used"),
    # item 15: the ignore marker counts in comments only, and a typo in an id is said
    Case("ignore marker inside a string", {"p/m.py": "import torch\nt = torch.arange(-4, 4)\na = (t // 2, '# auditor: ignore')\n"},
         SCAN, 1, "m.py:3:6"),
    Case("unknown id in an ignore comment", {"p/m.py": "import torch\nt = torch.arange(-4, 4)\na = t // 2  # auditor: ignore[torch-flor]\n"},
         SCAN, 1, "m.py: line 3: '# auditor: ignore[torch-flor]': no knowledge entry has this id"),
    # issue 12 §4: past the horizon, or a torch-family package without knowledge, fails the default --fail-on
    Case("scan past the horizon", ONE_SCRIPT, ("scan", "p", "--from", "2.13.0", "--to", "2.17.0"), 1,
         "not reviewed past 2.15.0"),
    Case("downgrade from past the horizon", ONE_SCRIPT, ("scan", "p", "--from", "2.17.0", "--to", "2.14.0"), 1,
         "MEDIUM torch 2.17.0 -> 2.14.0: not reviewed past 2.15.0"),
    Case("an unknown patch release past the horizon", ONE_SCRIPT, ("scan", "p", "--from", "2.15.0", "--to", "2.15.1"), 1,
         "not reviewed past 2.15.0"),
    Case("torchaudio moves without knowledge", {"a/requirements.txt": "torch==2.3.1\ntorchaudio==2.3.1\n",
                                                "b/requirements.txt": "torch==2.3.1\ntorchaudio==2.7.0\n"},
         ("compare", "a/requirements.txt", "b/requirements.txt"), 1,
         "torchaudio 2.3.1 -> 2.7.0: not reviewed: the knowledge base has no reviewed entry for torchaudio"),
    # item 1: the wheel findings follow the entry's kind
    Case("python 3.8 and torch 2.5.0", {"a/requirements.txt": "torch==2.4.1\n", "b/requirements.txt": "torch==2.5.0\n"},
         ("compare", "a/requirements.txt", "b/requirements.txt", "--python-version", "3.8"), 1,
         "(torch-python-3-8-dropped)"),
    Case("python 3.8 and torch 2.1.2", {"a/requirements.txt": "torch==2.0.1\n", "b/requirements.txt": "torch==2.1.2\n"},
         ("compare", "a/requirements.txt", "b/requirements.txt", "--python-version", "3.8"), 0,
         "torch 2.0.1 -> 2.1.2", never=("torch-python-3-8-dropped",)),
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


def fill(text: str, names: dict[str, str]) -> str:
    for name, value in names.items():
        text = text.replace("{" + name + "}", value)
    return text


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, case.files)
    names = {"tmp": str(tmp_path)}
    if case.commits:
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        names["base"] = commit(tmp_path)
        for files in case.commits:
            write(tmp_path, files)
            names["head"] = commit(tmp_path)
        names["head12"] = names["head"][:12]
    if case.setup is not None:
        case.setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = [fill(a, names) for a in case.args]
    start = time.process_time()
    result = CliRunner().invoke(app, args, env={"NO_COLOR": "1", "COLUMNS": "300", **case.env})
    elapsed = time.process_time() - start
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == case.exit, (result.stdout, result.stderr)
    assert fill(case.says, names) in getattr(result, case.stream), result.output
    for secret in case.never:
        assert secret not in result.output, result.output
    assert elapsed < case.within
    assert not (tmp_path / "pwned").exists()


FAKE_UV_PACKAGE = """
def find_uv_bin():
    return {uv!r}
"""
FAKE_UV = """#!/bin/sh
# answers `uv pip compile` with something that is not a list of pins
echo 'this is not a pin'
"""


def auditor_process(
    args: list[str], tmp: Path, fakes: Path | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    path = [str(fakes)] if fakes else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(ROOT)]), "NO_COLOR": "1", **extra}
    return subprocess.run([sys.executable, "-m", "auditor", *args], capture_output=True, text=True, env=env,
                          cwd=tmp, timeout=300, check=False)


@pytest.mark.parametrize("debug", ["", "--debug", "AUDITOR_DEBUG=1"])
def test_a_malformed_installer_reply_is_a_crash_exit_3_with_one_line(tmp_path: Path, debug: str) -> None:
    """uv is the tool's own helper, not the user's input: its nonsense is the tool failing (3),
    said in one line, the traceback only with --debug."""
    fakes = tmp_path / "fakes"
    (fakes / "uv").mkdir(parents=True)
    uv = fakes / "uv-bin"
    uv.write_text(FAKE_UV, "utf-8")
    uv.chmod(0o755)
    (fakes / "uv" / "__init__.py").write_text(FAKE_UV_PACKAGE.format(uv=str(uv)), "utf-8")
    args = ["probe", "--from", "2.5.0", "--to", "2.6.0", "--no-cache", "--no-pip-config", "--torch-index", "",
            "--python-old", sys.executable, "--python-new", sys.executable]
    done = auditor_process(["--debug", *args] if debug == "--debug" else args, tmp_path, fakes,
                           **dict([debug.split("=")]) if "=" in debug else {})
    assert done.returncode == 3, done.stderr
    lines = done.stderr.splitlines()
    failed = [line for line in lines if "failed" in line]
    assert failed == [f"auditor: probe failed unexpectedly: RuntimeError: {uv} pip compile replied with a line "
                      "that is not a pin: 'this is not a pin'" + ("" if debug else "; --debug shows the traceback")]
    if debug:
        assert "Traceback (most recent call last)" in done.stderr
    else:  # progress lines, then the one line that says what failed
        assert lines[-1] == failed[0]
        assert "Traceback" not in done.stderr


def test_every_command_maps_failures_to_exit_codes() -> None:
    """compare, scan, lock, kb, probe and github all go through the one error handler."""
    import typer.main

    group = typer.main.get_command(app)
    commands = []
    stack = [group]
    while stack:
        current = stack.pop()
        for name, command in getattr(current, "commands", {}).items():
            if getattr(command, "commands", None):
                stack.append(command)
            else:
                commands.append((name, command))
    assert {"compare", "scan", "show", "diff", "list", "verify", "probe", "github"} <= {n for n, _ in commands}
    handler = handles_errors(lambda: None).__code__
    for name, command in commands:
        codes, function = [], command.callback
        while function is not None:
            codes.append(function.__code__)
            function = getattr(function, "__wrapped__", None)
        assert handler in codes, name


def test_a_closed_standard_output_ends_quietly(tmp_path: Path) -> None:
    """`auditor kb list | head -1` after head is gone: no traceback, the SIGPIPE code, not 1."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "auditor", "kb", "list", "--format", "json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader went away before the report was written
    assert process.wait(timeout=120) == 141
    assert process.stderr.read() == b""


def test_ctrl_c_exits_130_quietly(tmp_path: Path) -> None:
    """Interrupted while it waits for a child (here an interpreter that never answers)."""
    started = tmp_path / "started"
    slow = tmp_path / "python"
    slow.write_text(f"#!/bin/sh\ntouch {started}\nexec sleep 60\n", "utf-8")
    slow.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "auditor", "probe", "--from", "2.5.0", "--to", "2.6.0",
                                "--no-cache", "--env-old", str(slow), "--env-new", str(slow)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err == b"" and out == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["kb", "list"],
                                  ["scan", EXAMPLE_PROJECT, "--from", "1.12.1", "--to", "1.13.0", "--no-cache"]])
def test_a_standard_output_that_takes_nothing_is_exit_2(tmp_path: Path, args: list[str]) -> None:
    """A full disk behind stdout is the place the user sent the report to, as with --output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "auditor", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr == "auditor: standard output: cannot write: No space left on device\n"
