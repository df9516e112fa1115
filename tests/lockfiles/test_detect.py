"""Detection by file name and by content, and the `--format-in` override."""

import shutil

import pytest
from lockfixtures import LOCKS

from auditor.errors import LockfileError
from auditor.lockfiles import FORMATS, read_lock
from auditor.lockfiles.detect import detect
from auditor.lockfiles.interface import read_text

BY_NAME = {
    "pip-freeze/cu117.txt": "pip-freeze",
    "requirements/compiled/requirements.txt": "requirements.txt",
    "requirements/requirements.in": "requirements.txt",
    "pipfile/cu118/Pipfile.lock": "Pipfile.lock",
    "poetry/lock-1.0/poetry.lock": "poetry.lock",
    "poetry/lock-2.1-groups/poetry.lock": "poetry.lock",
    "uv/forks-old/uv.lock": "uv.lock",
    "pdm/basic/pdm.lock": "pdm.lock",
    "pylock/pylock.toml": "pylock.toml",
    "pylock/pylock.gpu.toml": "pylock.toml",
    "conda/environment/environment.yml": "environment.yml",
    "conda/export/environment.yml": "conda-env-export",
    "conda/list-export/conda-list.txt": "conda-list-export",
    "conda/explicit/conda-linux-64.lock": "conda-explicit",
    "conda/conda-lock/conda-lock.yml": "conda-lock.yml",
}

# Renamed so that only the content can tell: (fixture, neutral name, format).
BY_CONTENT = [
    ("pip-freeze/cu117.txt", "pins.txt", "pip-freeze"),
    ("requirements/compiled/requirements.txt", "locked", "requirements.txt"),
    ("pipfile/cu118/Pipfile.lock", "lock.json", "Pipfile.lock"),
    ("poetry/lock-2.1-groups/poetry.lock", "lock.toml", "poetry.lock"),
    ("uv/forks-old/uv.lock", "lock.toml", "uv.lock"),
    ("pdm/basic/pdm.lock", "lock.toml", "pdm.lock"),
    ("pylock/pylock.toml", "lock.toml", "pylock.toml"),
    ("conda/environment/environment.yml", "spec.yml", "environment.yml"),
    ("conda/export/environment.yml", "spec.yml", "conda-env-export"),
    ("conda/list-export/conda-list.txt", "pins.txt", "conda-list-export"),
    ("conda/explicit/conda-linux-64.lock", "linux.txt", "conda-explicit"),
    ("conda/conda-lock/conda-lock.yml", "lock.yml", "conda-lock.yml"),
]


@pytest.mark.parametrize(("fixture", "expected"), BY_NAME.items())
def test_detected_by_name(fixture: str, expected: str) -> None:
    assert read_lock(LOCKS / fixture).format == expected


@pytest.mark.parametrize(("fixture", "name", "expected"), BY_CONTENT)
def test_detected_by_content(fixture: str, name: str, expected: str, tmp_path) -> None:
    target = tmp_path / name
    shutil.copy(LOCKS / fixture, target)
    assert detect(target, read_text(target)).name == expected


def test_every_format_is_registered_once() -> None:
    names = [f.name for f in FORMATS]
    assert len(names) == len(set(names)) == 16


def test_format_override_reads_as_asked(tmp_path) -> None:
    target = tmp_path / "whatever.lock"
    shutil.copy(LOCKS / "uv/forks-old/uv.lock", target)
    assert read_lock(target, "uv.lock").format == "uv.lock"
    with pytest.raises(LockfileError, match="unknown lock format 'yarn.lock'"):
        read_lock(target, "yarn.lock")


def test_unknown_files_cannot_be_detected() -> None:
    with pytest.raises(LockfileError, match="unknown lock format: cannot tell"):
        read_lock(LOCKS / "bad/unknown/settings.ini")


def test_an_empty_file_without_a_known_name_cannot_be_detected(tmp_path) -> None:
    target = tmp_path / "lock.dat"
    target.write_text("")
    with pytest.raises(LockfileError, match="lock.dat:1: empty file"):
        read_lock(target)


@pytest.mark.parametrize(
    "name", ["poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "pylock.toml", "conda-lock.yml",
             "environment.yml", "requirements.txt", "requirements.in"],
)
@pytest.mark.parametrize("text", ["", "  \n\n\t\n"])
def test_an_empty_lock_is_an_error_in_every_format(tmp_path, name: str, text: str) -> None:
    # a truncated lock read as "no packages" would report every package removed
    target = tmp_path / name
    target.write_text(text)
    with pytest.raises(LockfileError, match=rf"{name}:1: empty file"):
        read_lock(target)


@pytest.mark.parametrize(
    "name, text",
    [("poetry.lock", "# generated\n"), ("uv.lock", "# nothing\n"), ("pdm.lock", "#\n"),
     ("pylock.toml", "# x\n"), ("Pipfile.lock", " \n"), ("conda-lock.yml", "# x\n"),
     ("environment.yml", "# x\n")],
)
def test_a_lock_without_content_is_an_error(tmp_path, name: str, text: str) -> None:
    target = tmp_path / name
    target.write_text(text)
    with pytest.raises(LockfileError, match=rf"{name}:1: (no content|empty file|unknown lock format)"):
        read_lock(target)


def test_an_empty_requirements_file_is_an_error() -> None:
    with pytest.raises(LockfileError, match="empty file"):
        read_lock(LOCKS / "bad/empty-requirements.txt")
