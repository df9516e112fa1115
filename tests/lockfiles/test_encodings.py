"""Text encodings locks are written in: UTF-8 with or without a byte order mark, and UTF-16
with one (PowerShell's `pip freeze > file` writes UTF-16 LE), in every text format."""

import codecs
from pathlib import Path

import pytest
from lockfixtures import LOCKS

from auditor.errors import LockfileError
from auditor.lockfiles import read_lock

# one file of each text format, with the name detection reads it by
SAMPLES = {
    "pip-freeze": "pip-freeze/cu117.txt",
    "requirements.txt": "requirements/compiled/requirements.txt",
    "Pipfile.lock": "pipfile/cu118/Pipfile.lock",
    "poetry.lock": "poetry/lock-2.1-groups/poetry.lock",
    "uv.lock": "uv/forks-old/uv.lock",
    "pdm.lock": "pdm/basic/pdm.lock",
    "pylock.toml": "pylock/pylock.toml",
    "environment.yml": "conda/environment/environment.yml",
    "conda-lock.yml": "conda/conda-lock/conda-lock.yml",
    "conda-list-export": "conda/list-export/conda-list.txt",
    "pyproject.toml": "pyproject/poetry/pyproject.toml",
}
ENCODINGS = {
    "utf-8-bom": lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
    "utf-16-le-bom": lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
    "utf-16-be-bom": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_every_text_format_reads_in_every_encoding(tmp_path: Path, fmt: str, encoding: str) -> None:
    source = LOCKS / SAMPLES[fmt]
    expected = read_lock(source)
    target = tmp_path / source.name
    target.write_bytes(ENCODINGS[encoding](source.read_text("utf-8")))
    lock = read_lock(target)
    assert (lock.format, lock.pins) == (fmt, expected.pins)


def test_powershell_pip_freeze_output_reads(tmp_path: Path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_bytes("numpy==2.1.3\r\ntorch==2.5.1+cu124\r\n".encode("utf-16"))  # BOM, LE
    assert [str(p.version) for p in read_lock(target).pins] == ["2.1.3", "2.5.1+cu124"]


def test_a_binary_file_is_still_no_lock(tmp_path: Path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(LockfileError, match="binary file"):
        read_lock(target)
