"""`compare --git` on the layouts real repositories have: locks by folder and by content, links,
a change of lock format within the bump, pyproject sections, and several projects in one tree."""

import json
from pathlib import Path

import pytest
from fake_github import Repo, git
from typer.testing import CliRunner

from auditor.cli import app

LOADS = "import torch\n\nstate = torch.load('model.pt')\n"  # weights_only=True from torch 2.6.0
PYPROJECT = '[project]\nname = "p"\nversion = "1"\ndependencies = [{}]\n'
UV_LOCK = (
    'version = 1\nrequires-python = ">=3.10"\n\n[[package]]\nname = "p"\nversion = "1"\n'
    'source = {{ virtual = "." }}\n\n[[package]]\nname = "torch"\nversion = "{}"\n'
    'source = {{ registry = "https://pypi.org/simple" }}\n'
)


def pins(version: str) -> str:
    return f"numpy==1.26.4\ntorch=={version}\n"


@pytest.fixture
def layout(tmp_path: Path):
    """A repository of `files` at base, then `change` (None deletes, a ("link", target) tuple
    makes a link) at head; `train.py` loads a checkpoint."""

    def make(files: dict[str, str], change: dict[str, object]) -> Repo:
        path = tmp_path / "repo"
        path.mkdir()
        for name, text in {"train.py": LOADS, **files}.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_text(text, "utf-8")
        git(path, "init", "-q", "-b", "main")
        repo = Repo(path, "", "")
        repo.base = repo.commit({}, "base")
        for name, text in change.items():
            target = path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists() or target.is_symlink():
                target.unlink()
            if isinstance(text, tuple):
                target.symlink_to(text[1])
            elif text is not None:
                target.write_text(str(text), "utf-8")
        if change:
            repo.commit({}, "bump")
        return repo

    return make


def audit(repo: Repo, *args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(
        app, ["compare", "--git", f"{repo.base}..{repo.head}", "--project", str(repo.path), "-f", "json", *args]
    )
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def moves(document: dict) -> list[tuple[str, str | None, str | None, str]]:
    return [(t["package"], t["from"], t["to"], t["direction"]) for t in document["transitions"] if t["package"] == "torch"]


def flagged(document: dict) -> set[str]:
    return {f["path"] for f in document["findings"] if f["change"] == "torch-load-weights-only-default-true"}


# --- a change of format within the bump is a move ----------------------------------------------


def test_pyproject_pins_to_a_new_uv_lock_is_a_move(layout):
    repo = layout({"pyproject.toml": PYPROJECT.format('"torch==2.4.0"')},
                  {"pyproject.toml": PYPROJECT.format('"torch>=2.4"'), "uv.lock": UV_LOCK.format("2.10.0")})
    code, document = audit(repo)
    assert moves(document) == [("torch", "2.4.0", "2.10.0", "upgrade")]
    assert code == 1 and flagged(document) == {"train.py"}
    assert any(n.startswith("uv.lock: compared with pyproject.toml of") for n in document["notes"])


@pytest.mark.parametrize("kept", [True, False], ids=["requirements-kept", "requirements-deleted"])
def test_requirements_to_a_new_uv_lock_is_a_move(layout, kept):
    change: dict[str, object] = {"uv.lock": UV_LOCK.format("2.10.0")}
    if not kept:
        change["requirements.txt"] = None
    repo = layout({"requirements.txt": pins("2.4.0")}, change)
    code, document = audit(repo)
    assert moves(document) == [("torch", "2.4.0", "2.10.0", "upgrade")]
    assert code == 1 and flagged(document) == {"train.py"}
    assert "requirements.txt: deleted, not compared" not in document["notes"]


PIPFILE_LOCK = '{{"_meta": {{"pipfile-spec": 6, "sources": []}}, "default": {{"torch": {{"version": "=={}"}}}}, "develop": {{}}}}\n'
POETRY_LOCK = ('[[package]]\nname = "torch"\nversion = "{}"\ndescription = ""\noptional = false\npython-versions = ">=3.9"\n'
               'files = []\n\n[metadata]\nlock-version = "2.0"\npython-versions = "^3.10"\ncontent-hash = "0"\n')


@pytest.mark.parametrize(("files", "change"), [
    ({"Pipfile.lock": PIPFILE_LOCK.format("2.4.0")}, {"Pipfile.lock": None, "poetry.lock": POETRY_LOCK.format("2.6.0")}),
    ({"requirements.txt": pins("2.4.0")}, {"requirements.txt": None, "pyproject.toml": PYPROJECT.format('"torch==2.6.0"')}),
    ({"requirements.txt": pins("2.4.0"), "pyproject.toml": PYPROJECT.format("")},
     {"requirements.txt": None, "pyproject.toml": PYPROJECT.format('"torch==2.6.0"')}),
], ids=["pipfile-lock-to-poetry", "requirements-to-new-pyproject", "requirements-into-pyproject"])
def test_other_changes_of_format_are_moves(layout, files, change):
    code, document = audit(layout(files, change))
    assert moves(document) == [("torch", "2.4.0", "2.6.0", "upgrade")] and code == 1
    assert not any(n.endswith("deleted, not compared") for n in document["notes"])


def test_a_file_read_only_to_look_for_pins_says_nothing_when_it_does_not_read(layout):
    repo = layout({"requirements.txt": pins("2.4.0"), "requirements/README.txt": "How to pin: see the docs.\n"},
                  {"uv.lock": UV_LOCK.format("2.10.0")})
    document = audit(repo)[1]
    assert moves(document) == [("torch", "2.4.0", "2.10.0", "upgrade")]
    assert not any("README" in n for n in document["notes"]) and "lock-not-read" not in json.dumps(document)


def test_a_lock_new_to_a_project_without_a_pin_is_not_green(layout):
    repo = layout({"requirements.txt": "numpy==1.26.4\n"}, {"uv.lock": UV_LOCK.format("2.10.0")})
    code, document = audit(repo)
    assert moves(document) == [("torch", None, "2.10.0", "added")]
    said = [e for e in document["environment"] if e["kind"] == "no-pin"]
    assert said and said[0]["severity"] == "medium" and "nothing pinned torch for uv.lock's code before" in said[0]["message"]
    assert said[0]["message"] in document["notes"]
    assert code == 1


def test_two_files_by_hand_without_a_torch_pin_on_one_side(tmp_path):
    old, new = tmp_path / "requirements.txt", tmp_path / "uv.lock"
    old.write_text("numpy==1.26.4\n", "utf-8")
    new.write_text(UV_LOCK.format("2.10.0"), "utf-8")
    result = CliRunner().invoke(app, ["compare", str(old), str(new), "-f", "json"])
    document = json.loads(result.stdout)
    assert [e["kind"] for e in document["environment"] if e["package"] == "torch"] == ["no-pin"]
    assert result.exit_code == 1


def test_a_side_that_names_torch_without_a_version_is_not_a_missing_pin(tmp_path):
    old, new = tmp_path / "base.in", tmp_path / "base-new.in"
    old.write_text("torch\ntimm\n", "utf-8")
    new.write_text("torch\ntimm\ntorch==2.6.0\n", "utf-8")
    result = CliRunner().invoke(app, ["compare", str(old), str(new), "-f", "json"])
    kinds = {e["kind"] for e in json.loads(result.stdout)["environment"]}
    assert "not-locked" in kinds and "no-pin" not in kinds


def test_pyproject_pins_to_uv_lock_by_hand_is_a_move(tmp_path):
    old, new = tmp_path / "pyproject.toml", tmp_path / "uv.lock"
    old.write_text(PYPROJECT.format('"torch==2.4.0"'), "utf-8")
    new.write_text(UV_LOCK.format("2.10.0"), "utf-8")
    result = CliRunner().invoke(app, ["compare", str(old), str(new), "-f", "json"])
    assert moves(json.loads(result.stdout)) == [("torch", "2.4.0", "2.10.0", "upgrade")]


# --- every lock the repository has --------------------------------------------------------------


@pytest.mark.parametrize(("files", "change"), [
    ({"requirements/base.txt": pins("2.4.0")}, {"requirements/base.txt": pins("2.6.0")}),
    ({"requirements.txt": pins("2.4.0")}, {"requirements.txt": None, "requirements/base.txt": pins("2.6.0")}),
    ({"reqs/prod.txt": pins("2.4.0")}, {"reqs/prod.txt": pins("2.6.0")}),
    ({"deps.txt": pins("2.4.0")}, {"deps.txt": pins("2.6.0")}),
    ({"requirements.lock": "# generated by rye\n" + pins("2.4.0")}, {"requirements.lock": "# generated by rye\n" + pins("2.6.0")}),
    ({"requirements/ci/gpu.in": pins("2.4.0")}, {"requirements/ci/gpu.in": pins("2.6.0")}),
], ids=["requirements-folder", "moved-into-requirements-folder", "reqs-folder", "deps.txt", "rye-lock", "nested-in"])
def test_locks_by_folder_and_name(layout, files, change):
    code, document = audit(layout(files, change))
    assert moves(document) == [("torch", "2.4.0", "2.6.0", "upgrade")]
    assert code == 1 and flagged(document) == {"train.py"}


def test_a_lock_by_folder_that_does_not_parse_is_a_finding(layout):
    repo = layout({"requirements/base.txt": pins("2.4.0")}, {"requirements/base.txt": "torch==2.6.0 garbage\n"})
    code, document = audit(repo)
    unread = [e for e in document["environment"] if e["kind"] == "lock-not-read"]
    assert code == 1 and unread and unread[0]["message"].startswith("requirements/base.txt: not read as a lock")


def test_a_link_whose_target_changed_is_a_change_of_the_link(layout, tmp_path):
    repo = layout({"pins/cpu": pins("2.4.0")}, {"requirements.txt": ("link", "pins/cpu")})
    repo.base = repo.head
    repo.commit({"pins/cpu": pins("2.6.0")}, "bump the target")
    code, document = audit(repo)
    assert moves(document) == [("torch", "2.4.0", "2.6.0", "upgrade")] and code == 1
    assert "requirements.txt: read through its link to pins/cpu, which changed" in document["notes"]


def test_a_link_pointed_elsewhere_is_a_change(layout):
    repo = layout({"pins/a.txt": pins("2.4.0"), "pins/b.txt": pins("2.6.0")}, {})
    (repo.path / "requirements.txt").symlink_to("pins/a.txt")
    repo.base = repo.commit({}, "link")
    (repo.path / "requirements.txt").unlink()
    (repo.path / "requirements.txt").symlink_to("pins/b.txt")
    repo.commit({}, "relink")
    assert moves(audit(repo)[1]) == [("torch", "2.4.0", "2.6.0", "upgrade")]


def test_an_unknown_name_is_read_by_its_content_and_a_non_lock_is_named(layout):
    repo = layout({"envs/gpu.txt": pins("2.4.0"), "docs/notes.txt": "Some words about the project.\n",
                   "version.txt": "0.6.2\n", "settings.yaml": "debug: false\n"},
                  {"envs/gpu.txt": pins("2.6.0"), "docs/notes.txt": "Other words about it.\n",
                   "version.txt": "0.6.3\n", "settings.yaml": "debug: true\n"})
    code, document = audit(repo)
    assert moves(document) == [("torch", "2.4.0", "2.6.0", "upgrade")] and code == 1
    assert "envs/gpu.txt: read as a lock by its content" in document["notes"]
    assert "Changed, and not lockfiles by name or content (not read): docs/notes.txt, version.txt" in document["notes"]


def test_the_note_of_changed_non_locks_names_ten(layout):
    data = {f"data/words-{n:02}.txt": "Some words.\n" for n in range(12)}
    repo = layout({}, {**data, "requirements.txt": pins("2.4.0")})
    notes = audit(repo)[1]["notes"]
    said = next(n for n in notes if n.startswith("Changed, and not lockfiles"))
    assert said.endswith("data/words-09.txt and 2 more") and "words-10" not in said


def test_lockfiles_option_names_the_locks(layout):
    repo = layout({"envs/gpu.pins": pins("2.4.0"), "requirements.txt": pins("2.4.0")},
                  {"envs/gpu.pins": pins("2.6.0"), "requirements.txt": pins("2.5.0")})
    code, document = audit(repo, "--lockfiles", "envs/*.pins")
    assert moves(document) == [("torch", "2.4.0", "2.6.0", "upgrade")] and code == 1
    assert any(n.endswith(": envs/gpu.pins") for n in document["notes"] if n.startswith("Lockfiles compared"))


# --- pyproject.toml -----------------------------------------------------------------------------


def test_a_poetry_bump_is_never_changed_but_not_its_dependencies(layout):
    poetry = '[tool.poetry]\nname = "p"\nversion = "1"\n\n[tool.poetry.dependencies]\npython = "^3.10"\ntorch = "{}"\n'
    repo = layout({"pyproject.toml": poetry.format("2.5.1")}, {"pyproject.toml": poetry.format("2.6.0")})
    code, document = audit(repo)
    assert not any("not its dependencies" in n for n in document["notes"])
    read = moves(document) == [("torch", "2.5.1", "2.6.0", "upgrade")]
    unread = [e for e in document["environment"] if e["kind"] == "dependencies-not-read"]
    assert read or "[tool.poetry.dependencies]" in unread[0]["message"]
    assert code == 1


def test_a_pyproject_change_outside_its_dependencies_is_said(layout):
    repo = layout({"pyproject.toml": PYPROJECT.format('"torch==2.4.0"')},
                  {"pyproject.toml": PYPROJECT.format('"torch==2.4.0"') + "\n[tool.ruff]\nline-length = 100\n"})
    code, document = audit(repo)
    assert "pyproject.toml: changed, but not its dependencies" in document["notes"]
    assert code == 0 and document["environment"] == []


@pytest.mark.parametrize(("name", "before", "after"), [
    ("setup.py", 'from setuptools import setup\n\nsetup(install_requires=["numpy", "torch==2.4.0"])\n',
     'from setuptools import setup\n\nsetup(install_requires=["numpy", "torch==2.6.0"])\n'),
    ("setup.cfg", "[metadata]\nname = p\n\n[options]\ninstall_requires =\n    numpy\n    torch==2.4.0\n",
     "[metadata]\nname = p\n\n[options]\ninstall_requires =\n    numpy\n    torch==2.6.0\n"),
], ids=["setup.py", "setup.cfg"])
def test_a_setup_py_or_cfg_pin_is_read_as_the_transition(layout, name, before, after):
    code, document = audit(layout({name: before}, {name: after}))
    assert [(t["package"], t["from"], t["to"]) for t in document["transitions"]] == [("torch", "2.4.0", "2.6.0")]
    assert code == 1 and [(f["path"], f["line"]) for f in document["findings"]] == [("train.py", 3)]


def test_a_setup_py_that_computes_its_requirements_is_not_read_and_not_green(layout):
    computed = 'from setuptools import setup\n\nsetup(install_requires=open("reqs.txt").read().split())  # {}\n'
    code, document = audit(layout({"setup.py": computed.format("torch==2.4.0")},
                                  {"setup.py": computed.format("torch==2.6.0")}))
    said = [n for n in document["notes"] if "setup.py: not read" in n]
    assert len(said) == 2 and all("computed when setup.py runs" in n and n.endswith("(line 3)") for n in said)
    assert code == 1 and document["verdict"] != "pass"
    assert [e["kind"] for e in document["environment"]] == ["dependencies-not-read"]


def test_a_pipfile_bump_is_read(layout):
    code, document = audit(layout({"Pipfile": '[packages]\ntorch = "==2.4.0"\n'},
                                  {"Pipfile": '[packages]\ntorch = "==2.6.0"\n'}))
    assert moves(document) == [("torch", "2.4.0", "2.6.0", "upgrade")]
    assert code == 1 and flagged(document) == {"train.py"}
    assert [e["kind"] for e in document["environment"]] == []


def test_a_pipfile_that_does_not_parse_is_not_green_when_torch_lines_move(layout):
    code, document = audit(layout({"Pipfile": '[packages]\ntorch = "==2.4.0"\n'},
                                  {"Pipfile": '[packages]\ntorch = "==2.6.0"\n[packages\n'}))
    unread = [e for e in document["environment"] if e["kind"] == "dependencies-not-read"]
    assert code == 1 and unread and unread[0]["message"].startswith("Pipfile: lines naming a torch-family package changed")


def test_a_setup_py_change_away_from_torch_lines_says_nothing(layout):
    code, document = audit(layout({"setup.py": 'VERSION = "1"\nREQ = ["torch==2.4.0"]\n'},
                                  {"setup.py": 'VERSION = "2"\nREQ = ["torch==2.4.0"]\n'}))
    assert code == 0 and document["environment"] == []


# --- several projects in one repository ---------------------------------------------------------


MONOREPO = {
    "services/vision/requirements.txt": pins("1.12.1"), "services/vision/infer.py": LOADS,
    "services/legacy/requirements.txt": pins("1.12.1"), "services/legacy/serve.py": LOADS,
    "shared/util.py": LOADS,
}


def test_each_lock_judges_its_own_project(layout):
    repo = layout(MONOREPO, {"services/vision/requirements.txt": pins("2.6.0")})
    code, document = audit(repo)
    assert moves(document) == [("torch", "1.12.1", "2.6.0", "upgrade")] and code == 1
    # shared/util.py is imported by nothing: no project's lock judges it, nor the root's train.py
    assert flagged(document) == {"services/vision/infer.py"}
    assert "services/vision/requirements.txt: its moves judge the code in services/vision/" in document["notes"]
    assert "1 call site(s) in code governed by services/legacy/requirements.txt not reported: " \
           "no move of its lock crosses their change" in document["notes"]
    assert ("2 call site(s) in code that no lock governs and no governed code imports, not judged by another "
            "project's lock (the root: 1, shared/: 1); name its lock in [tool.auditor.lock-scopes] to judge it"
            ) in document["notes"]


def test_code_no_lock_governs_is_judged_by_the_locks_of_its_importers(layout):
    files = {**MONOREPO, "services/vision/infer.py": "from shared.util import state\n" + LOADS,
             "services/legacy/serve.py": "from shared import (\n    other,\n)\n" + LOADS}
    code, document = audit(layout(files, {"services/vision/requirements.txt": pins("2.6.0")}))
    assert flagged(document) == {"services/vision/infer.py", "shared/util.py"} and code == 1
    assert ("1 call site(s) in code that no lock governs, judged by the locks of the code that imports it "
            "(or of the only lock)") in document["notes"]


def test_code_no_lock_governs_is_judged_by_the_only_lock(layout):
    repo = layout({"app/requirements.txt": pins("2.4.0"), "app/serve.py": LOADS, "scripts/export.py": LOADS},
                  {"app/requirements.txt": pins("2.6.0")})
    assert flagged(audit(repo)[1]) == {"app/serve.py", "scripts/export.py", "train.py"}


def test_lock_scopes_in_the_settings(layout):
    settings = ('[tool.auditor.lock-scopes]\n"services/vision/requirements.txt" = ["services/vision", "./shared/"]\n'
                '"services/legacy/requirements.txt" = ["services/legacy", "."]\n')
    repo = layout({**MONOREPO, "pyproject.toml": settings}, {"services/vision/requirements.txt": pins("2.6.0")})
    assert flagged(audit(repo)[1]) == {"services/vision/infer.py", "shared/util.py"}


def test_a_root_lock_governs_what_no_nested_one_does(layout):
    repo = layout({**MONOREPO, "requirements.txt": pins("1.12.1")}, {"requirements.txt": pins("2.6.0")})
    assert flagged(audit(repo)[1]) == {"train.py", "shared/util.py"}


def test_a_nested_lock_that_does_not_name_torch_leaves_it_to_the_lock_above(layout):
    repo = layout({"requirements.txt": pins("2.4.0"), "tests/requirements.txt": "pytest==8.0.0\n",
                   "tests/test_load.py": LOADS, "docs/requirements.txt": "sphinx==7.0.0\n", "docs/conf.py": LOADS},
                  {"requirements.txt": pins("2.6.0")})
    assert flagged(audit(repo)[1]) == {"train.py", "tests/test_load.py", "docs/conf.py"}


def test_a_lock_scope_naming_no_lock_is_said(layout):
    settings = '[tool.auditor.lock-scopes]\n"services/vision/requirement.txt" = ["services/vision"]\n'
    repo = layout({**MONOREPO, "pyproject.toml": settings}, {"services/vision/requirements.txt": pins("2.6.0")})
    assert any("lock-scopes names services/vision/requirement.txt, which is no lock of the commit scanned" in n
               for n in audit(repo)[1]["notes"])


def test_a_lock_in_a_folder_without_code_governs_its_project(layout):
    repo = layout({"docker/requirements.txt": pins("2.4.0"), "src/app/model.py": LOADS},
                  {"docker/requirements.txt": pins("2.6.0")})
    assert flagged(audit(repo)[1]) == {"train.py", "src/app/model.py"}



def test_lock_scopes_must_be_a_table_of_lists(layout):
    repo = layout({**MONOREPO, "pyproject.toml": '[tool.auditor]\nlock-scopes = "services"\n'},
                  {"services/vision/requirements.txt": pins("2.6.0")})
    result = CliRunner().invoke(app, ["compare", "--git", f"{repo.base}..{repo.head}", "--project", str(repo.path)])
    assert result.exit_code == 2 and "lock-scopes must be a table of lock path = [folders]" in result.output


def test_lockfiles_needs_git(tmp_path):
    result = CliRunner().invoke(app, ["compare", "a.txt", "b.txt", "--lockfiles", "*.txt"])
    assert result.exit_code == 2 and "--lockfiles: only used with --git" in result.output


def test_a_lock_deleted_in_the_working_tree_is_said(layout):
    repo = layout({"requirements.txt": pins("2.4.0"), "requirements-gpu.txt": pins("2.4.0")}, {})
    (repo.path / "requirements-gpu.txt").unlink()
    result = CliRunner().invoke(app, ["compare", "--git", "HEAD..", "--project", str(repo.path), "-f", "json"])
    assert "requirements-gpu.txt: deleted, not compared" in json.loads(result.stdout)["notes"]


def test_the_working_tree_against_head_reads_a_requirements_folder(layout):
    repo = layout({"requirements/base.txt": pins("2.4.0")}, {})
    (repo.path / "requirements" / "base.txt").write_text(pins("2.6.0"), "utf-8")
    result = CliRunner().invoke(app, ["compare", "--git", "HEAD..", "--project", str(repo.path), "-f", "json"])
    assert result.exit_code == 1 and moves(json.loads(result.stdout)) == [("torch", "2.4.0", "2.6.0", "upgrade")]


# --- messages name the repository's files, never the temporary checkouts -----------------------


def test_lock_messages_name_repository_paths_not_checkouts(layout):
    """An unpinned requirement read on both sides, and the Python a lock is made for: each
    message names `svc/requirements.txt`, never the temporary checkout it was read from."""
    repo = layout({"svc/requirements.txt": "torch>=2.2\ntorchvision==0.17.0\n"},
                  {"svc/requirements.txt": "torch>=2.6\ntorchvision==0.21.0\n"})
    _, document = audit(repo)
    said = json.dumps(document)
    assert "auditor-git" not in said
    messages = [e["message"] for e in document["environment"] if "does not pin torch " in e["message"]]
    assert messages and all(m.startswith("svc/requirements.txt does not pin torch") for m in messages), messages


def test_a_bump_that_pins_what_was_a_floor_does_not_fail_on_the_floor(tmp_path):
    """The old side asked for `torch>=1.7.1`, the new one pins 1.7.1: the start of the move is not
    known, which leaves the verdict unchecked; it is no problem of the bump, which fixes it."""
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("torch>=1.7.1\ntorchvision>=0.8.2\n", "utf-8")
    new.write_text("torch==1.7.1\ntorchvision==0.8.2\n", "utf-8")
    result = CliRunner().invoke(app, ["compare", str(old), str(new), "-f", "json"])
    document = json.loads(result.stdout)
    floors = [e for e in document["environment"] if e["kind"] == "not-locked"]
    assert [(e["package"], e["severity"]) for e in floors] == [("torch", "low"), ("torchvision", "low")]
    assert "before the bump" in floors[0]["message"]
    assert result.exit_code == 0 and document["verdict"] == "unchecked"


def test_many_projects_left_out_are_one_note(layout):
    """A repository of examples, each with its own lock, where one example's lock moves: the code
    of the others is counted in one note, not one note per example."""
    files = {f"ex{i}/requirements.txt": pins("1.12.1") for i in range(5)}
    files |= {f"ex{i}/main.py": LOADS for i in range(5)}
    _, document = audit(layout(files, {"ex0/requirements.txt": pins("2.6.0")}))
    assert flagged(document) == {"ex0/main.py"}
    left = [n for n in document["notes"] if "not reported" in n]
    assert left == [
        "4 call site(s) in code governed by 4 other locks not reported: no move of those locks "
        "crosses their change (ex1/requirements.txt: 1; ex2/requirements.txt: 1; "
        "ex3/requirements.txt: 1; ex4/requirements.txt: 1)"
    ]


def test_the_text_report_of_a_range_names_a_fix_command_that_runs(layout, monkeypatch):
    repo = layout({"requirements.txt": pins("2.4.0")}, {"requirements.txt": pins("2.6.0")})
    monkeypatch.chdir(repo.path)
    result = CliRunner().invoke(app, ["compare", "--git", f"{repo.base}..{repo.head}"])
    assert "auditor fix --from 2.4.0 --to 2.6.0 . --keep-old --diff" in result.stdout
    assert "OLD_LOCK" not in result.stdout
