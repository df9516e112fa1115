"""A Pipfile read as a declaration: its exact pins, its ranges, indexes, markers and categories."""

from pathlib import Path

import pytest
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles import read_lock

PIPFILE = """[[source]]
url = "https://pypi.org/simple"
name = "pypi"

[[source]]
url = "https://download.pytorch.org/whl/cu121"
name = "pytorch"

[packages]
torch = {version = "==2.1.2", index = "pytorch"}
torchvision = "==0.16.2"
numpy = "*"
"ruamel.yaml" = ">=0.17"
mylib = {path = "./mylib", editable = true}
triton = {version = "==2.1.0", sys_platform = "== 'linux'"}

[dev-packages]
pytest = "==7.4.0"

[requires]
python_version = "3.10"
"""


def test_a_pipfile_is_read_as_a_declaration(tmp_path: Path) -> None:
    (tmp_path / "Pipfile").write_text(PIPFILE, "utf-8")
    lock = read_lock(tmp_path / "Pipfile")
    assert (lock.format, lock.python) == ("Pipfile", "3.10")
    pins = {p.name: p for p in lock.pins}
    assert (pins["torch"].version, pins["torch"].source, pins["torch"].line) == (
        Version("2.1.2"), "https://download.pytorch.org/whl/cu121", 10)
    assert pins["torchvision"].version == Version("0.16.2")
    assert (pins["numpy"].version, pins["numpy"].specifier) == (None, None)
    assert pins["ruamel-yaml"].specifier == ">=0.17"
    assert pins["mylib"].local and pins["mylib"].source == "./mylib"
    assert pins["triton"].marker == 'sys_platform == "linux"'
    assert pins["pytest"].groups == ("develop",) and pins["torch"].groups == ("default",)


def test_a_value_of_the_wrong_type_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "Pipfile").write_text("[packages]\nnumpy = \"*\"\ntorch = 2\n", "utf-8")
    with pytest.raises(LockfileError) as caught:
        read_lock(tmp_path / "Pipfile")
    assert caught.value.line == 3 and "torch: expected a version string or a table" in caught.value.message
