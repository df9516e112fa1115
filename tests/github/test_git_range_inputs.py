"""`compare --git`: what it reads on each side (includes, pyproject.toml, commit HEAD) and what it
refuses (hostile revisions and blobs, includes and links out of the repository)."""

import json
import subprocess
import tempfile

import pytest
from fake_github import NEW_LOCK, OLD_LOCK
from typer.testing import CliRunner

from auditor.cli import app


def compare(*args: str):
    result = CliRunner().invoke(app, ["compare", *args])
    assert "Traceback" not in result.output
    return result


def as_json(repo, *args: str) -> dict:
    result = compare("--git", f"{repo.base}..{repo.head}", "--project", str(repo.path), "-f", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def moves(document: dict) -> list[tuple[str, str | None, str | None]]:
    return [(t["package"], t["from"], t["to"]) for t in document["transitions"]]


@pytest.fixture
def constrained(make_repo):
    """requirements.txt takes torch's pin from constraints/torch.txt."""
    repo = make_repo({
        "requirements.txt": "-c constraints/torch.txt\ntorch\nnumpy==1.23.5\n",
        "constraints/torch.txt": "torch==1.12.1\n",
    })
    repo.base = repo.head
    return repo


def test_a_bump_inside_an_include_is_seen(constrained):
    constrained.commit({"constraints/torch.txt": "torch==1.13.0\n"})
    document = as_json(constrained)
    assert moves(document) == [("torch", "1.12.1", "1.13.0")]
    assert any("requirements.txt: read on both sides, as constraints/torch.txt" in n for n in document["notes"])
    assert any(n.startswith("Lockfiles compared in") and "requirements.txt" in n for n in document["notes"])


def test_a_bump_inside_an_include_is_seen_when_the_includer_changed_too(constrained):
    constrained.commit({
        "constraints/torch.txt": "torch==1.13.0\n",
        "requirements.txt": "-c constraints/torch.txt\ntorch\nnumpy==1.23.5\nrequests==2.31.0\n",
    })
    assert moves(as_json(constrained)) == [("torch", "1.12.1", "1.13.0")]


def test_pyproject_dependencies_count(make_repo):
    project = '[project]\nname = "p"\nversion = "1"\ndependencies = ["torch=={}"]\n'
    repo = make_repo({"pyproject.toml": project.format("1.12.1")})
    repo.base = repo.head
    repo.commit({"pyproject.toml": project.format("1.13.0")})
    document = as_json(repo)
    assert moves(document) == [("torch", "1.12.1", "1.13.0")]
    assert any("pyproject.toml" in n for n in document["notes"] if n.startswith("Lockfiles compared"))


def test_a_pyproject_beside_its_lock_is_passed_by_with_a_note(make_repo):
    project = '[project]\nname = "p"\nversion = "1"\ndependencies = ["torch>={}"]\n'
    repo = make_repo({"pyproject.toml": project.format("1.12"), "uv.lock": "version = 1\n[[package]]\nname = \"x\"\nversion = \"1\"\n"})
    repo.base = repo.head
    repo.commit({"pyproject.toml": project.format("1.13")})
    document = as_json(repo)
    assert document["transitions"] == [] and document["environment"] == []
    assert "pyproject.toml: not compared, uv.lock beside it pins its dependencies" in document["notes"]


def test_the_project_is_scanned_as_of_head_not_the_working_tree(make_repo, monkeypatch, tmp_path):
    repo = make_repo()
    (repo.path / "data" / "windows.py").write_text("x = 1\n")  # uncommitted: not what HEAD holds
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    document = as_json(repo)
    assert any(f["path"] == "data/windows.py" and f["line"] == 14 for f in document["findings"])
    assert f"Lockfiles and project read as of commit {repo.head[:12]} (a temporary checkout)" in document["notes"]
    assert list(scratch.iterdir()) == []  # the checkouts are gone


def test_a_project_folder_missing_at_head_is_an_error(make_repo):
    repo = make_repo()
    (repo.path / "new-folder").mkdir()
    (repo.path / "new-folder" / "train.py").write_text("import torch\n")  # not committed
    result = compare("--git", f"{repo.base}..{repo.head}", "--project", str(repo.path / "new-folder"))
    assert result.exit_code == 2 and f"not in commit {repo.head}" in result.output


def test_every_option_reaches_the_range(make_repo, tmp_path):
    repo = make_repo()
    span = f"{repo.base}..{repo.head}"
    bad_platform = compare("--git", span, "--project", str(repo.path), "--platform", "amiga")
    assert bad_platform.exit_code == 2 and "unknown platform 'amiga'" in bad_platform.output
    forced = compare("--git", span, "--project", str(repo.path), "--new-format", "poetry.lock")
    assert forced.exit_code == 2 and f"{repo.head[:12]}:requirements.txt" in forced.output
    config = tmp_path / "auditor.toml"
    config.write_text('exclude = ["data/**"]\n')
    document = as_json(repo, "--config", str(config))
    assert moves(document) == [("torch", "1.12.1", "1.13.0")]
    assert not any(f["path"].startswith("data/") for f in document["findings"])


@pytest.mark.parametrize("span", [
    "--upload-pack=touch {marker}..HEAD", "HEAD..--output={marker}", "HEAD..a:b", "HEAD..x y",
])
def test_hostile_revisions_never_reach_git(make_repo, tmp_path, span):
    repo = make_repo()
    marker = tmp_path / "pwned"
    result = compare("--git", span.format(marker=marker), "--project", str(repo.path))
    assert result.exit_code == 2 and "not a commit or branch name" in result.output
    assert not marker.exists()


@pytest.mark.parametrize("data, message", [
    (b"torch==1.13.0\n\xff\xfe\n", "not UTF-8 text"),
    (b"torch==1.13.0\n\0\n", "binary file"),
    (b"<<<<<<< HEAD\ntorch==1.13.0\n=======\ntorch==1.12.1\n>>>>>>> other\n", "merge conflict"),
])
def test_blobs_get_the_checks_files_get(make_repo, data, message):
    repo = make_repo()
    (repo.path / "requirements.txt").write_bytes(data)
    subprocess.run(["git", "-C", str(repo.path), "commit", "-qam", "bad"], check=True)
    head = subprocess.run(["git", "-C", str(repo.path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    result = compare("--git", f"{repo.base}..{head}", "--project", str(repo.path))
    assert result.exit_code == 2 and message in result.output
    assert f"{head[:12]}:requirements.txt" in result.output


def test_includes_out_of_the_repository_are_refused_with_a_note(make_repo, tmp_path):
    (tmp_path / "outside.txt").write_text("torch==9.9.9\n")
    repo = make_repo({"requirements.txt": "-r ../outside.txt\n" + NEW_LOCK})
    document = as_json(repo)
    assert moves(document) == [("torch", "1.12.1", "1.13.0")]
    assert "requirements.txt: the include ../outside.txt (requirements.txt:1) lies outside the repository: not read" in document["notes"]
    assert "9.9.9" not in json.dumps(document)


def test_a_lockfile_linked_out_of_the_repository_is_not_read(make_repo, tmp_path):
    (tmp_path / "secret.txt").write_text("torch==9.9.9\n")
    repo = make_repo()
    (repo.path / "requirements.txt").unlink()
    (repo.path / "requirements.txt").symlink_to(tmp_path / "secret.txt")
    repo.commit({}, "link")
    document = as_json(repo)
    assert "9.9.9" not in json.dumps(document)
    assert "requirements.txt: a link out of the repository, not read" in document["notes"]


def test_a_deleted_lockfile_is_said(make_repo):
    repo = make_repo({"requirements-gpu.txt": OLD_LOCK})
    repo.base = repo.head
    (repo.path / "requirements-gpu.txt").unlink()
    repo.commit({}, "drop the gpu lock")
    document = as_json(repo)
    assert "requirements-gpu.txt: deleted, not compared" in document["notes"]
    assert moves(document) == []


def test_the_action_validates_base_and_head(make_repo, github_api, actions_env, tmp_path):
    repo = make_repo()
    marker = tmp_path / "pwned"
    env = actions_env(repo, github_api.url, AUDITOR_BASE=f"--upload-pack=touch {marker}")
    result = CliRunner().invoke(app, ["github"], env=env)
    assert result.exit_code == 2 and "--base: not a commit or branch name" in result.output
    assert not marker.exists()


def test_old_lock_text_stays_as_it_was(make_repo):
    assert OLD_LOCK != NEW_LOCK  # the fixtures this module relies on


def test_a_file_name_with_a_newline_never_reaches_the_log(make_repo):
    repo = make_repo()
    repo.commit({"requirements-\n::error::injected\n.txt": "", "requirements.txt": NEW_LOCK.replace("1.13.0", "2.0.0")})
    result = compare("--git", f"{repo.base}..{repo.head}", "--project", str(repo.path), "-f", "json")
    assert result.exit_code in (0, 1), result.output
    assert "::error::injected" not in result.output
    assert "1 changed file(s) with control characters in their names, not read" in json.loads(result.stdout)["notes"]


def test_a_checkout_the_disk_cannot_hold_is_refused(make_repo, monkeypatch):
    from auditor import gitrange

    repo = make_repo()
    monkeypatch.setattr(gitrange, "SPARE_BYTES", 2**62)  # as if the disk were nearly full
    result = compare("--git", f"{repo.base}..{repo.head}", "--project", str(repo.path))
    assert result.exit_code == 2 and "GB, but the temporary folder has" in result.output


def test_a_base_lockfile_linked_out_of_the_repository_is_not_read(make_repo, tmp_path):
    (tmp_path / "secret.txt").write_text("torch==0.4.0\n")
    repo = make_repo()
    (repo.path / "requirements.txt").unlink()
    (repo.path / "requirements.txt").symlink_to(tmp_path / "secret.txt")
    repo.base = repo.commit({}, "link")
    (repo.path / "requirements.txt").unlink()
    repo.commit({"requirements.txt": NEW_LOCK}, "file again")
    document = as_json(repo)
    assert "0.4.0" not in json.dumps(document)
    assert f"requirements.txt: a link out of the repository in {repo.base[:12]}, not read there" in document["notes"]
