"""`auditor compare --git BASE..HEAD` on a real repository."""

import json

import pytest
from fake_github import NEW_LOCK
from typer.testing import CliRunner

from auditor.cli import app
from auditor.gitrange import GitError, changed_lockfiles, parse_range


def compare(*args: str):
    result = CliRunner().invoke(app, ["compare", *args])
    assert "Traceback" not in result.output
    return result


def test_parse_range():
    assert parse_range("main..HEAD") == ("main", "HEAD")
    assert parse_range("main...feature") == ("main", "feature")
    assert parse_range("HEAD..") == ("HEAD", None)
    assert parse_range("v1.0") == ("v1.0", None)
    with pytest.raises(GitError):
        parse_range("..HEAD")


def test_range_between_commits(make_repo):
    repo = make_repo()
    result = compare("--git", f"{repo.base}..{repo.head}", "--project", str(repo.path), "-f", "json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    assert document["transitions"][0]["from"] == "1.12.1" and document["transitions"][0]["to"] == "1.13.0"
    assert any(f["path"] == "data/windows.py" and f["line"] == 14 for f in document["findings"])


def test_working_tree_against_head(make_repo):
    repo = make_repo({"README.md": "unrelated\n"})
    assert changed_lockfiles(repo.path, "HEAD", None) == []
    (repo.path / "requirements.txt").write_text(NEW_LOCK, "utf-8")
    assert changed_lockfiles(repo.path, "HEAD", None) == ["requirements.txt"]
    result = compare("--git", "HEAD..", "--project", str(repo.path), "-f", "markdown")
    assert result.exit_code == 1
    assert "**torch 1.12.1 -> 1.13.0**" in result.output


def test_nothing_changed_is_clean(make_repo):
    repo = make_repo({"README.md": "unrelated\n"})
    result = compare("--git", f"{repo.base}..{repo.head}", "--project", str(repo.path))
    assert result.exit_code == 0, result.output


def test_unknown_revision_is_exit_2(make_repo):
    repo = make_repo()
    result = compare("--git", "nosuchbranch..HEAD", "--project", str(repo.path))
    assert result.exit_code == 2
    assert "nosuchbranch" in result.output and "fetch-depth" in result.output


def test_git_and_files_are_exclusive(make_repo, examples):
    repo = make_repo()
    result = compare(str(examples / "requirements-old.txt"), "--git", "HEAD..", "--project", str(repo.path))
    assert result.exit_code == 2 and "--git replaces OLD and NEW" in result.output
    assert compare("--project", str(repo.path)).exit_code == 2


def test_shallow_checkout_fetches_the_base(make_repo, tmp_path):
    import subprocess

    from auditor.gitrange import has_commit, read_range

    repo = make_repo()
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth=1", repo.path.as_uri(), str(clone)], check=True)
    assert not has_commit(clone, repo.base)
    with read_range(clone, repo.base, repo.head) as reading:
        pairs = reading.pairs
    assert [p.path for p in pairs] == ["requirements.txt"]
    assert pairs[0].old is not None and str(pairs[0].old.pins[-1].version) == "1.12.1"
